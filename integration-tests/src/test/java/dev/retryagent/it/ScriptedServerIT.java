package dev.retryagent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import dev.retryagent.it.harness.TlsMaterial;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The scripted server itself, seen from plain clients (java.net.http and raw sockets). No agent. */
@Timeout(30)
class ScriptedServerIT {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private static HttpClient http() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(WAIT).build();
    }

    private static HttpResponse<String> get(HttpClient client, String url) throws Exception {
        return client.send(HttpRequest.newBuilder(java.net.URI.create(url)).timeout(WAIT).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void answersWithTheScriptInArrivalOrderAndRepeatsTheLastStep() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(
                Step.status(503).retryAfterSeconds(2).body("busy"),
                Step.status(429).header("X-Extra", "1").header("X-Extra", "2"),
                Step.status(200).body("done"))) {
            HttpClient client = http();
            HttpResponse<String> first = get(client, server.url("/items?page=1"));
            HttpResponse<String> second = get(client, server.url("/items"));
            HttpResponse<String> third = get(client, server.url("/items"));
            HttpResponse<String> fourth = get(client, server.url("/other"));

            assertEquals(503, first.statusCode());
            assertEquals("2", first.headers().firstValue("Retry-After").orElseThrow());
            assertEquals("busy", first.body());
            assertEquals(429, second.statusCode());
            assertEquals(List.of("1", "2"), second.headers().allValues("X-Extra"));
            assertEquals(200, third.statusCode());
            assertEquals("done", third.body());
            assertEquals(200, fourth.statusCode(), "the last step repeats");
            assertEquals("done", fourth.body());

            List<RecordedRequest> seen = server.requests();
            assertEquals(4, seen.size());
            assertEquals("GET", seen.get(0).method());
            assertEquals("/items?page=1", seen.get(0).target());
            assertEquals("/items", seen.get(0).path());
            assertEquals("page=1", seen.get(0).query());
            assertEquals("/other", seen.get(3).path());
            for (int i = 0; i < seen.size(); i++) {
                assertEquals(i, seen.get(i).sequence());
                assertTrue(seen.get(i).complete());
            }
            assertTrue(server.serverErrors().isEmpty(), server.serverErrors().toString());
        }
    }

    @Test
    void emptyScriptAnswers200AndStepsCanBeAddedLater() throws Exception {
        try (ScriptedServer server = ScriptedServer.start()) {
            HttpClient client = http();
            assertEquals(200, get(client, server.url("/a")).statusCode());
            server.enqueue(Step.status(502), Step.status(204));
            assertEquals(502, get(client, server.url("/a")).statusCode());
            assertEquals(204, get(client, server.url("/a")).statusCode());
            assertEquals(204, get(client, server.url("/a")).statusCode());
        }
    }

    @Test
    void retryAfterAsHttpDate() throws Exception {
        Instant when = Instant.now().plusSeconds(3).truncatedTo(ChronoUnit.SECONDS);
        try (ScriptedServer server = ScriptedServer.start(Step.status(503).retryAfterDate(when))) {
            String value = get(http(), server.url("/")).headers().firstValue("Retry-After").orElseThrow();
            assertTrue(value.endsWith(" GMT"), value);
            assertEquals(when, ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
        }
    }

    @Test
    void recordsHeadersCaseInsensitivelyWithRepeatsAndTheBodyBytes() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.status(201));
                Socket socket = connect(server)) {
            byte[] body = {0, 1, 2, (byte) 0xff, 'x'};
            send(socket, "POST /upload HTTP/1.1\r\nHost: x\r\nX-Multi: a\r\nx-multi: b\r\nIdempotency-Key: k-1\r\n"
                    + "Content-Length: 5\r\n\r\n");
            socket.getOutputStream().write(body);
            assertTrue(readHead(socket.getInputStream()).startsWith("HTTP/1.1 201 Created\r\n"));

            RecordedRequest r = server.awaitRequests(1, WAIT).get(0);
            assertEquals("POST", r.method());
            assertEquals(List.of("a", "b"), r.headers().all("X-MULTI"));
            assertEquals("k-1", r.header("idempotency-key"));
            assertFalse(r.headers().contains("Transfer-Encoding"));
            assertArrayEquals(body, r.body());
            assertFalse(r.chunked());
            assertEquals("HTTP/1.1", r.version());
        }
    }

    @Test
    void decodesAndRecordsAChunkedBody() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.ok());
                Socket socket = connect(server)) {
            send(socket, "POST /chunks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "7\r\nHello, \r\n"
                    + "d;ext=1\r\nchunked world\r\n"
                    + "0\r\nX-Trailer: t\r\n\r\n");
            assertTrue(readHead(socket.getInputStream()).startsWith("HTTP/1.1 200 OK\r\n"));
            RecordedRequest r = server.awaitRequests(1, WAIT).get(0);
            assertTrue(r.chunked());
            assertTrue(r.complete());
            assertEquals("Hello, chunked world", r.bodyUtf8());
        }
    }

    @Test
    void answers100ContinueBeforeReadingTheBody() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.ok());
                Socket socket = connect(server)) {
            send(socket, "PUT /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
            assertEquals("HTTP/1.1 100 Continue\r\n\r\n", readHead(socket.getInputStream()));
            send(socket, "abc");
            assertTrue(readHead(socket.getInputStream()).startsWith("HTTP/1.1 200 OK\r\n"));
            assertEquals("abc", server.awaitRequests(1, WAIT).get(0).bodyUtf8());
        }
    }

    @Test
    void delaysTheAnswerAndRecordsArrivalGaps() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.ok().delayMillis(300), Step.ok())) {
            HttpClient client = http();
            long start = System.nanoTime();
            assertEquals(200, get(client, server.url("/slow")).statusCode());
            long elapsedMs = Duration.ofNanos(System.nanoTime() - start).toMillis();
            assertEquals(200, get(client, server.url("/fast")).statusCode());
            assertTrue(elapsedMs >= 300, "answered after " + elapsedMs + " ms");

            List<RecordedRequest> seen = server.requests();
            long gap = seen.get(1).millisAfter(seen.get(0));
            assertTrue(gap >= 300, "gap " + gap + " ms");
            assertTrue(!seen.get(1).arrivedAt().isBefore(seen.get(0).arrivedAt()));
        }
    }

    @Test
    void keepsConnectionsAliveAndNumbersThem() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.ok())) {
            try (Socket socket = connect(server)) {
                for (int i = 0; i < 3; i++) {
                    send(socket, "GET /k" + i + " HTTP/1.1\r\nHost: x\r\n\r\n");
                    String head = readHead(socket.getInputStream());
                    assertTrue(head.contains("Content-Length: 2\r\n"), head);
                    assertEquals("ok", new String(readN(socket.getInputStream(), 2), StandardCharsets.US_ASCII));
                }
            }
            try (Socket other = connect(server)) {
                send(other, "GET /k3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                String response = new String(other.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                assertTrue(response.contains("Connection: close\r\n"), response);
                assertTrue(response.endsWith("\r\n\r\nok"), response);
            }
            List<RecordedRequest> seen = server.awaitRequests(4, WAIT);
            assertEquals(List.of(1, 1, 1, 2), seen.stream().map(RecordedRequest::connectionId).toList());
            assertEquals(List.of(0, 1, 2, 0), seen.stream().map(RecordedRequest::indexOnConnection).toList());
            assertEquals(2, server.connectionsAccepted());
        }
    }

    @Test
    void closeAfterResponseEndsTheConnectionWithoutAnnouncingIt() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.ok().closeAfterResponse());
                Socket socket = connect(server)) {
            send(socket, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertFalse(response.contains("Connection:"), response);
            assertTrue(response.endsWith("\r\n\r\nok"), response);
        }
    }

    @Test
    void dropAfterRequestReadsTheRequestThenClosesWithoutAnswer() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.dropAfterRequest())) {
            try (Socket socket = connect(server)) {
                send(socket, "POST /drop HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody");
                assertEquals(-1, socket.getInputStream().read(), "no response byte, then end of stream");
            }
            RecordedRequest r = server.awaitRequests(1, WAIT).get(0);
            assertTrue(r.complete());
            assertEquals("body", r.bodyUtf8());

            IOException e = assertThrows(IOException.class, () -> get(http(), server.url("/drop")));
            assertTrue(server.requestCount() >= 2, "the client's request reached the server first: " + e);
        }
    }

    @Test
    void resetMidBodySendsHeadAndPartOfTheBodyThenRst() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.resetMidBody())) {
            try (Socket socket = connect(server)) {
                send(socket, "GET /reset HTTP/1.1\r\nHost: x\r\n\r\n");
                InputStream in = socket.getInputStream();
                String head = readHead(in);
                assertTrue(head.startsWith("HTTP/1.1 200 OK\r\n"), head);
                assertTrue(head.contains("Content-Length: 64\r\n"), head);
                assertEquals("0123456789abcdef", new String(readN(in, 16), StandardCharsets.US_ASCII));
                SocketException reset = assertThrows(SocketException.class, () -> in.read(new byte[64]));
                assertTrue(String.valueOf(reset.getMessage()).toLowerCase().contains("reset"), reset.toString());
            }
            IOException e = assertThrows(IOException.class, () -> get(http(), server.url("/reset")));
            assertEquals(2, server.requestCount(), e.toString());
        }
    }

    @Test
    void closeMidBodyTruncatesTheBodyWithAFin() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.closeMidBody().body("abcdefghij").cutAfter(4));
                Socket socket = connect(server)) {
            send(socket, "GET /truncated HTTP/1.1\r\nHost: x\r\n\r\n");
            InputStream in = socket.getInputStream();
            String head = readHead(in);
            assertTrue(head.contains("Content-Length: 10\r\n"), head);
            assertEquals("abcd", new String(in.readAllBytes(), StandardCharsets.US_ASCII));
        }
    }

    @Test
    void chunkedResponseAndHeadRequests() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.ok().body("chunked reply").chunked())) {
            HttpClient client = http();
            HttpResponse<String> response = get(client, server.url("/c"));
            assertEquals("chunked reply", response.body());
            assertEquals("chunked", response.headers().firstValue("Transfer-Encoding").orElseThrow());
            server.script(Step.ok().body("12345"));
            HttpResponse<String> head = client.send(HttpRequest.newBuilder(server.uri("/h"))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).timeout(WAIT).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals("", head.body());
            assertEquals("5", head.headers().firstValue("Content-Length").orElseThrow());
        }
    }

    @Test
    void awaitRequestsFailsClearlyOnTimeout() {
        try (ScriptedServer server = ScriptedServer.start()) {
            AssertionError e = assertThrows(AssertionError.class,
                    () -> server.awaitRequests(1, Duration.ofMillis(100)));
            assertTrue(e.getMessage().contains("received 0"), e.getMessage());
        }
    }

    @Test
    void refusingPortRefuses() {
        int port = ScriptedServer.refusingPort();
        assertThrows(ConnectException.class, () -> new Socket(InetAddress.getLoopbackAddress(), port).close());
    }

    @Test
    void closeEndsPendingDelaysAndConnections() throws Exception {
        ScriptedServer server = ScriptedServer.start(Step.ok().delay(Duration.ofSeconds(60)));
        Socket socket = connect(server);
        send(socket, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        server.awaitRequests(1, WAIT);
        long start = System.nanoTime();
        server.close();
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toSeconds() < 5);
        assertThrows(IOException.class, () -> {
            int b = socket.getInputStream().read();
            if (b < 0) {
                throw new IOException("closed");
            }
        });
        socket.close();
    }

    @Test
    void servesHttpsWithATestTimeCertificate() throws Exception {
        TlsMaterial tls = TlsMaterial.shared();
        try (ScriptedServer server = ScriptedServer.startTls(tls, Step.status(503), Step.ok().body("secure"))) {
            assertTrue(server.url("/s").startsWith("https://127.0.0.1:"));
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .sslContext(tls.clientContext()).connectTimeout(WAIT).build();
            assertEquals(503, get(client, server.url("/s")).statusCode());
            HttpResponse<String> second = get(client, server.url("/s"));
            assertEquals("secure", second.body());
            List<RecordedRequest> seen = server.awaitRequests(2, WAIT);
            assertEquals(seen.get(0).connectionId(), seen.get(1).connectionId(), "TLS keep-alive");
            assertNotEquals(0, server.connectionsAccepted());
        }
    }

    // ---- raw socket helpers ----

    private static Socket connect(ScriptedServer server) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port());
        socket.setSoTimeout((int) WAIT.toMillis());
        return socket;
    }

    private static void send(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** Reads up to and including the blank line that ends a response head. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("end of stream inside a response head: " + head);
            }
            head.write(b);
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    private static byte[] readN(InputStream in, int n) throws IOException {
        byte[] b = in.readNBytes(n);
        assertEquals(n, b.length);
        return b;
    }
}
