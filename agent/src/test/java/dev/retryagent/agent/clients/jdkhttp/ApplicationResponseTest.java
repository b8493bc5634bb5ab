package dev.retryagent.agent.clients.jdkhttp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.Test;

/**
 * The response the application gets when the attempt sent a marked copy of its request: the client's, but for the
 * request it says it answers ({@link ApplicationResponse}). CallerViewIT compares it with the client alone.
 */
class ApplicationResponseTest {
    private final JdkHttpApi api = JdkHttpApi.of(HttpRequest.class);
    private final HttpRequest application = HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/a"))
            .header("X-App", "1").timeout(Duration.ofSeconds(9)).GET().build();
    private final HttpRequest sent = (HttpRequest) api.copy(application, "Retry-Attempt", "1", Duration.ofSeconds(2));

    @Test
    void theResponseToTheRequestSentAnswersWithTheApplicationsOwn() {
        Response client = new Response(sent, null, 200);
        HttpResponse<?> seen = view(client);
        assertSame(application, seen.request());
        assertEquals(200, seen.statusCode());
        assertEquals("body", seen.body());
        assertEquals(client.uri(), seen.uri());
        assertEquals(client.toString(), seen.toString());
        assertTrue(seen.previousResponse().isEmpty());
        assertEquals(seen, seen);
        assertNotEquals(view(client), seen);
    }

    @Test
    void afterARedirectTheHopsRequestLosesTheMarkerAndGetsTheApplicationsTimeout() {
        HttpRequest hop = HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/b")).header("X-App", "1")
                .header("Retry-Attempt", "1").timeout(Duration.ofSeconds(2)).GET().build();
        HttpResponse<?> seen = view(new Response(hop, new Response(sent, null, 302), 200));
        HttpRequest answered = seen.request();
        assertEquals(URI.create("http://127.0.0.1:1/b"), answered.uri());
        assertEquals(Map.of("X-App", List.of("1")), answered.headers().map());
        assertEquals(Optional.of(Duration.ofSeconds(9)), answered.timeout());
        assertSame(answered, seen.request());
        HttpResponse<?> previous = seen.previousResponse().orElseThrow();
        assertEquals(302, previous.statusCode());
        assertSame(application, previous.request());
        assertSame(previous, seen.previousResponse().orElseThrow());

        // a hop that carries no header of the agent's and the application's timeout is the client's own
        HttpRequest plain = HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/c"))
                .timeout(Duration.ofSeconds(9)).GET().build();
        assertSame(plain, view(new Response(plain, null, 200)).request());
        // a request of the application's own without timeout gets none back
        HttpRequest untimed = HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/a")).GET().build();
        HttpResponse<?> redirected = (HttpResponse<?>) api.response(new ApplicationResponse(api,
                new Response(hop, null, 200), untimed, api.copy(untimed, "Retry-Attempt", "1", null), "Retry-Attempt"));
        assertFalse(redirected.request().timeout().isPresent());
        assertFalse(redirected.request().headers().firstValue("retry-attempt").isPresent());
    }

    private HttpResponse<?> view(HttpResponse<?> client) {
        return (HttpResponse<?>) api.response(new ApplicationResponse(api, client, application, sent, "Retry-Attempt"));
    }

    /** A response as the client makes it, of {@code request}, after {@code previous}. */
    private record Response(HttpRequest request, HttpResponse<String> previous, int statusCode)
            implements HttpResponse<String> {
        @Override
        public Optional<HttpResponse<String>> previousResponse() {
            return Optional.ofNullable(previous);
        }

        @Override
        public HttpHeaders headers() {
            return HttpHeaders.of(Map.of(), (a, b) -> true);
        }

        @Override
        public String body() {
            return "body";
        }

        @Override
        public Optional<SSLSession> sslSession() {
            return Optional.empty();
        }

        @Override
        public URI uri() {
            return request.uri();
        }

        @Override
        public HttpClient.Version version() {
            return HttpClient.Version.HTTP_1_1;
        }

        @Override
        public String toString() {
            return "(" + request.method() + " " + request.uri() + ") " + statusCode;
        }
    }
}
