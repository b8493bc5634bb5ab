package dev.retryagent.it.apps;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

/** {@link ForwardingService}'s {@code --client jdk-httpclient}: {@code java.net.http}, HTTP/1.1. */
final class JdkHttpClientForwarder implements ForwardingService.Forwarder {
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1).build();

    @Override
    public ForwardingService.Reply forward(String method, String url, List<String[]> headers, byte[] body)
            throws IOException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
                .method(method, body.length > 0 ? HttpRequest.BodyPublishers.ofByteArray(body)
                        : HttpRequest.BodyPublishers.noBody());
        for (String[] h : headers) {
            request.header(h[0], h[1]);
        }
        try {
            HttpResponse<byte[]> response = client.send(request.build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            return new ForwardingService.Reply(response.statusCode(), response.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted");
        }
    }
}
