import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The "small app" of the start-up budget: starts, makes one OkHttp call to a loopback server of its own,
 * prints the status and exits. No agent code. Used by startup.sh, with and without -javaagent.
 */
public final class StartupApp {
    public static void main(String[] args) throws Exception {
        final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread serverThread = new Thread(() -> {
            try (Socket socket = server.accept()) {
                InputStream in = socket.getInputStream();
                byte[] buffer = new byte[8192];
                int total = 0;
                // read until the end of the request head (a GET has no body)
                while (total < buffer.length) {
                    int n = in.read(buffer, total, buffer.length - total);
                    if (n < 0) {
                        break;
                    }
                    total += n;
                    String head = new String(buffer, 0, total, StandardCharsets.ISO_8859_1);
                    if (head.contains("\r\n\r\n")) {
                        break;
                    }
                }
                OutputStream out = socket.getOutputStream();
                out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            } catch (Exception e) {
                e.printStackTrace();
            }
        }, "loopback-server");
        serverThread.setDaemon(true);
        serverThread.start();

        OkHttpClient client = new OkHttpClient();
        Request request = new Request.Builder().url("http://127.0.0.1:" + server.getLocalPort() + "/ping").build();
        try (Response response = client.newCall(request).execute()) {
            System.out.println("status=" + response.code() + " body=" + response.body().string());
        }
        System.exit(0);
    }
}
