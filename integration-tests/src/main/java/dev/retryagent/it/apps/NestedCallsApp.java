package dev.retryagent.it.apps;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/**
 * A "legacy" application whose calls nest one instrumented client inside another on the same thread, as real code
 * does: an OkHttp application interceptor that makes a call of its own through HttpURLConnection (a token or
 * audit lookup) before it proceeds, sync and async, or through another OkHttp client with {@code enqueue}; and an
 * OkHttp client used as the API of a wrapper whose transport is Apache HttpClient 5 (its interceptor executes the
 * request there, headers included, and never proceeds). It knows nothing about the agent. Needs OkHttp and
 * HttpClient 5 on the class path.
 *
 * <pre>
 * --case NAME=URL     repeatable, run one after the other; NAME is one of
 *     interceptor         sync OkHttp GET URL/outer; its interceptor first GETs URL/inner with HttpURLConnection
 *     async-interceptor   the same with Call.enqueue
 *     inner-async         sync OkHttp GET URL/outer; its interceptor first enqueues GET URL/inner on another
 *                         OkHttp client and waits for the callback
 *     wrapper             sync OkHttp GET URL/wrapped, executed by HttpClient 5 classic
 * </pre>
 * Prints per case {@code RESULT id=NAME status=..} (or {@code failure=..}), then {@code DONE}.
 */
public final class NestedCallsApp {
    private NestedCallsApp() {
    }

    public static void main(String[] argv) throws Exception {
        List<String[]> cases = new ArrayList<>();
        for (int i = 0; i < argv.length; i++) {
            if (!argv[i].equals("--case") || i + 1 >= argv.length || !argv[i + 1].contains("=")) {
                System.err.println("usage error: --case NAME=URL ...");
                System.exit(2);
            }
            String spec = argv[++i];
            cases.add(new String[] {spec.substring(0, spec.indexOf('=')), spec.substring(spec.indexOf('=') + 1)});
        }
        OkHttpClient plain = new OkHttpClient.Builder().build();
        CloseableHttpClient transport = HttpClients.createDefault();
        for (String[] c : cases) {
            String name = c[0];
            String base = c[1];
            try {
                int status;
                switch (name) {
                    case "interceptor":
                        status = sync(plain.newBuilder().addInterceptor(lookupWithJdk(base)).build(), base + "/outer");
                        break;
                    case "async-interceptor":
                        status = async(plain.newBuilder().addInterceptor(lookupWithJdk(base)).build(), base + "/outer");
                        break;
                    case "inner-async":
                        status = sync(plain.newBuilder().addInterceptor(lookupWithEnqueue(base)).build(),
                                base + "/outer");
                        break;
                    case "wrapper":
                        status = sync(plain.newBuilder().addInterceptor(throughHttpClient5(transport)).build(),
                                base + "/wrapped");
                        break;
                    default:
                        throw new IllegalArgumentException("case " + name);
                }
                Report.line("RESULT", "id", name, "status", status);
            } catch (Exception e) {
                Report.line("RESULT", "id", name, "failure", e.getClass().getName(), "message", e.getMessage());
            }
        }
        Report.line("DONE");
        System.exit(0);
    }

    private static int sync(OkHttpClient client, String url) throws IOException {
        try (Response response = client.newCall(new Request.Builder().url(url).build()).execute()) {
            return response.code();
        }
    }

    private static int async(OkHttpClient client, String url) throws Exception {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        client.newCall(new Request.Builder().url(url).build()).enqueue(new Callback() {
            @Override
            public void onFailure(Call call, IOException e) {
                done.completeExceptionally(e);
            }

            @Override
            public void onResponse(Call call, Response response) {
                response.close();
                done.complete(response.code());
            }
        });
        return done.get(30, TimeUnit.SECONDS);
    }

    /** An interceptor that looks something up with HttpURLConnection (GET base/inner) before it proceeds. */
    private static Interceptor lookupWithJdk(String base) {
        return chain -> {
            HttpURLConnection conn = (HttpURLConnection) new URL(base + "/inner").openConnection();
            int code = conn.getResponseCode();
            InputStream body = code < 400 ? conn.getInputStream() : conn.getErrorStream();
            if (body != null) {
                Report.drain(body);
                body.close();
            }
            return chain.proceed(chain.request());
        };
    }

    /** An interceptor that looks something up with another OkHttp client's enqueue, and waits for it. */
    private static Interceptor lookupWithEnqueue(String base) {
        OkHttpClient other = new OkHttpClient.Builder().build();
        return chain -> {
            try {
                async(other, base + "/inner");
            } catch (Exception e) {
                throw new IOException(e);
            }
            return chain.proceed(chain.request());
        };
    }

    /** The wrapper's transport: the OkHttp request, headers included, executed by HttpClient 5; never proceeds. */
    private static Interceptor throughHttpClient5(CloseableHttpClient transport) {
        return chain -> {
            Request request = chain.request();
            HttpUriRequestBase copy = new HttpUriRequestBase(request.method(), request.url().uri());
            for (String name : request.headers().names()) {
                for (String value : request.headers(name)) {
                    copy.addHeader(name, value);
                }
            }
            return transport.execute(copy, response -> {
                byte[] body = response.getEntity() == null ? new byte[0] : EntityUtils.toByteArray(response.getEntity());
                return new Response.Builder().request(request).protocol(Protocol.HTTP_1_1).code(response.getCode())
                        .message(response.getReasonPhrase() == null ? "" : response.getReasonPhrase())
                        .body(ResponseBody.create(body, MediaType.get("text/plain"))).build();
            });
        };
    }
}
