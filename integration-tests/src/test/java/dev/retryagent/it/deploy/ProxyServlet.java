package dev.retryagent.it.deploy;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * A web application's handler that makes an outbound call: loaded by the container's web application class loader
 * from {@code WEB-INF/classes}, with OkHttp from {@code WEB-INF/lib}. Answers
 * {@code status=.. body=.. servletLoader=CLASS okhttpLoader=CLASS} for the backend named by the system property
 * {@code backend.url}.
 */
public final class ProxyServlet extends HttpServlet {
    private final OkHttpClient client = new OkHttpClient();

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        try (Response backend = client.newCall(new Request.Builder().url(System.getProperty("backend.url")).build())
                .execute()) {
            response.setContentType("text/plain");
            response.getWriter().print("status=" + backend.code() + " body=" + backend.body().string()
                    + " servletLoader=" + getClass().getClassLoader().getClass().getName()
                    + " okhttpLoader=" + OkHttpClient.class.getClassLoader().getClass().getName());
        }
    }
}
