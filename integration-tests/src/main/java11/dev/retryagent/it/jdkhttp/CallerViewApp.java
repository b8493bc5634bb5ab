package dev.retryagent.it.jdkhttp;

import dev.retryagent.it.apps.Report;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A plain {@code java.net.http} application (no agent code) that prints what its code sees of a call: the exception
 * a dependent stage of {@code sendAsync}'s future gets, the stack of a {@code send} failure, and the request a
 * response says it answers. Every call is made one after the other, in each form: {@code send}, {@code sendAsync}
 * with two arguments, with a push promise handler, and with a null one.
 *
 * <pre>
 * --timeout URL   answers later than the request's timeout (500 ms)
 * --refused URL   refuses connections
 * --dropped URL   reads the request and closes the connection without an answer
 * --ok URL        answers 200
 * --redirect URL  answers 302 to another path, then 200 there (one pair per form)
 * --marker NAME   the header whose presence in {@code response.request()} is reported (default Retry-Attempt)
 * </pre>
 * Per failure and form, {@code RESULT id=KIND-FORM ...}: for {@code send} the exception thrown, its cause, the
 * frames of its stack up to this class ({@code stack}, class.method) and how many frames of
 * {@code HttpClientImpl.send} each exception of its cause chain has ({@code sendFrames}); for the async forms the
 * exception {@code whenComplete}, {@code handle}, {@code exceptionally} and {@code join} see and the cause
 * {@code get}'s {@code ExecutionException} carries. Per response, {@code RESULT id=ok-FORM} or {@code redirect-FORM}:
 * whether {@code response.request()} (and the previous response's) equals the request made, is it, has the same hash
 * code, finds the entry a map keyed by the request holds, carries the marker, and its path, headers and timeout. Then
 * {@code DONE}.
 */
public final class CallerViewApp {
    private static final List<String> FORMS = List.of("send", "async2", "async3", "async3null");
    private static final String SEND_FRAME = "jdk.internal.net.http.HttpClientImpl.send";

    private CallerViewApp() {
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new HashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.put(argv[i].substring(2), argv[i + 1]);
        }
        String marker = args.getOrDefault("marker", "Retry-Attempt");
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NORMAL).build();
        Report.line("APP", "java", System.getProperty("java.version"));
        for (String kind : List.of("timeout", "refused", "dropped")) {
            Duration timeout = kind.equals("timeout") ? Duration.ofMillis(500) : Duration.ofSeconds(20);
            for (String form : FORMS) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(args.get(kind))).timeout(timeout)
                        .header("X-App", "caller-view").GET().build();
                failure(client, request, kind + "-" + form, form);
            }
        }
        for (String kind : List.of("ok", "redirect")) {
            for (String form : FORMS) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(args.get(kind)))
                        .timeout(Duration.ofSeconds(20)).header("X-App", "caller-view").GET().build();
                response(client, request, kind + "-" + form, form, marker);
            }
        }
        Report.line("DONE");
    }

    private static CompletableFuture<HttpResponse<String>> call(HttpClient client, HttpRequest request, String form) {
        HttpResponse.BodyHandler<String> handler = HttpResponse.BodyHandlers.ofString();
        switch (form) {
            case "async2":
                return client.sendAsync(request, handler);
            case "async3":
                return client.sendAsync(request, handler, (initiating, pushed, acceptor) -> { });
            case "async3null":
                return client.sendAsync(request, handler, null);
            default:
                try {
                    return CompletableFuture.completedFuture(client.send(request, handler));
                } catch (Exception e) {
                    return CompletableFuture.failedFuture(e);
                }
        }
    }

    private static void failure(HttpClient client, HttpRequest request, String id, String form) {
        CompletableFuture<HttpResponse<String>> future = call(client, request, form);
        if (form.equals("send")) {
            Throwable thrown = future.handle((r, t) -> t).join();
            List<String> frames = new ArrayList<>();
            for (StackTraceElement e : thrown == null ? new StackTraceElement[0] : thrown.getStackTrace()) {
                if (e.getClassName().equals(CallerViewApp.class.getName())) {
                    break;
                }
                frames.add(e.getClassName() + "." + e.getMethodName());
            }
            List<String> sendFrames = new ArrayList<>();
            for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
                long n = java.util.Arrays.stream(t.getStackTrace())
                        .filter(e -> (e.getClassName() + "." + e.getMethodName()).equals(SEND_FRAME)).count();
                sendFrames.add(String.valueOf(n));
            }
            Report.line("RESULT", "id", id, "thrown", name(thrown), "cause", name(cause(thrown)),
                    "stack", String.join(">", frames), "sendFrames", String.join(",", sendFrames));
            return;
        }
        AtomicReference<Throwable> whenComplete = new AtomicReference<>();
        future.whenComplete((r, t) -> whenComplete.set(t)).handle((r, t) -> t).join();
        Throwable handle = future.handle((r, t) -> t).join();
        AtomicReference<Throwable> exceptionally = new AtomicReference<>();
        future.exceptionally(t -> {
            exceptionally.set(t);
            return null;
        }).join();
        Throwable join = joined(future);
        Throwable get;
        try {
            future.get();
            get = null;
        } catch (ExecutionException e) {
            get = e.getCause();
        } catch (Exception e) {
            get = e;
        }
        Report.line("RESULT", "id", id, "whenComplete", name(whenComplete.get()), "whenCompleteCause",
                name(cause(whenComplete.get())), "handle", name(handle), "handleCause", name(cause(handle)),
                "exceptionally", name(exceptionally.get()), "exceptionallyCause", name(cause(exceptionally.get())),
                "join", name(join), "joinCause", name(cause(join)), "get", name(get));
    }

    /** What {@code join} throws. */
    private static Throwable joined(CompletableFuture<?> future) {
        try {
            future.join();
            return null;
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
            return e;
        }
    }

    private static void response(HttpClient client, HttpRequest request, String id, String form, String marker) {
        HttpResponse<String> response;
        try {
            response = call(client, request, form).join();
        } catch (CompletionException e) {
            Report.line("RESULT", "id", id, "failure", name(e.getCause()));
            return;
        }
        Map<HttpRequest, String> byRequest = new HashMap<>();
        byRequest.put(request, "entry");
        HttpRequest answered = response.request();
        Optional<HttpResponse<String>> previous = response.previousResponse();
        HttpRequest previousRequest = previous.map(HttpResponse::request).orElse(null);
        Report.line("RESULT", "id", id, "status", response.statusCode(), "body", response.body(),
                "equals", answered.equals(request), "same", answered == request,
                "hash", answered.hashCode() == request.hashCode(), "mapHit", byRequest.get(answered),
                "marker", answered.headers().firstValue(marker).isPresent(), "path", answered.uri().getPath(),
                "timeout", answered.timeout().map(Duration::toMillis).orElse(-1L),
                "headers", answered.headers().map(),
                "previous", previous.isPresent(),
                "previousEquals", previousRequest != null && previousRequest.equals(request),
                "previousSame", previousRequest == request,
                "previousMarker", previousRequest != null
                        && previousRequest.headers().firstValue(marker).isPresent(),
                "previousTimeout", previousRequest == null ? -1
                        : previousRequest.timeout().map(Duration::toMillis).orElse(-1L),
                "previousPrevious", previous.map(p -> p.previousResponse().isPresent()).orElse(false));
    }

    private static Throwable cause(Throwable t) {
        return t == null ? null : t.getCause();
    }

    private static String name(Throwable t) {
        return t == null ? "none" : t.getClass().getName();
    }
}
