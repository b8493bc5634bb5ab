package dev.retryagent.it.apps;

import dev.retryagent.it.clients.HttpClient5Kit;
import dev.retryagent.it.clients.HttpUrlConnectionKit;
import dev.retryagent.it.clients.KitReply;
import dev.retryagent.it.clients.KitRequest;
import dev.retryagent.it.clients.OkHttpKit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

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
        HttpClient5Kit transport = new HttpClient5Kit();
        for (String[] c : cases) {
            String name = c[0];
            String base = c[1];
            try {
                int status;
                switch (name) {
                    case "interceptor":
                        status = with(plain, lookupWithJdk(base)).call(KitRequest.get(base + "/outer")).status();
                        break;
                    case "async-interceptor":
                        status = with(plain, lookupWithJdk(base)).callAsync(KitRequest.get(base + "/outer"))
                                .get(30, TimeUnit.SECONDS).status();
                        break;
                    case "inner-async":
                        status = with(plain, lookupWithEnqueue(base)).call(KitRequest.get(base + "/outer")).status();
                        break;
                    case "wrapper":
                        status = with(plain, throughHttpClient5(transport)).call(KitRequest.get(base + "/wrapped"))
                                .status();
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

    private static OkHttpKit with(OkHttpClient plain, Interceptor interceptor) {
        return new OkHttpKit(plain.newBuilder().addInterceptor(interceptor).build());
    }

    /** An interceptor that looks something up with HttpURLConnection (GET base/inner) before it proceeds. */
    private static Interceptor lookupWithJdk(String base) {
        HttpUrlConnectionKit jdk = new HttpUrlConnectionKit();
        return chain -> {
            jdk.call(KitRequest.get(base + "/inner"));
            return chain.proceed(chain.request());
        };
    }

    /** An interceptor that looks something up with another OkHttp client's enqueue, and waits for it. */
    private static Interceptor lookupWithEnqueue(String base) {
        OkHttpKit other = new OkHttpKit();
        return chain -> {
            try {
                other.callAsync(KitRequest.get(base + "/inner")).get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IOException(e);
            }
            return chain.proceed(chain.request());
        };
    }

    /** The wrapper's transport: the OkHttp request, headers included, executed by HttpClient 5; never proceeds. */
    private static Interceptor throughHttpClient5(HttpClient5Kit transport) {
        return chain -> {
            Request request = chain.request();
            KitRequest copy = KitRequest.of(request.method(), request.url().toString());
            for (String name : request.headers().names()) {
                for (String value : request.headers(name)) {
                    copy = copy.header(name, value);
                }
            }
            KitReply reply = transport.call(copy);
            return new Response.Builder().request(request).protocol(Protocol.HTTP_1_1).code(reply.status())
                    .message("").body(ResponseBody.create(reply.body(), MediaType.get("text/plain"))).build();
        };
    }
}
