package dev.retryagent.bench.startup;

import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;

/**
 * The loopback server of the start-up apps: a plain socket that answers one request with {@code 200 ok} and closes,
 * so that the server itself loads almost nothing beyond what the client under test loads.
 */
public final class OneShotServer {
    private OneShotServer() {
    }

    /** Starts serving one request on a daemon thread; answers the port. */
    public static int start() throws Exception {
        final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread thread = new Thread(() -> {
            try (Socket socket = server.accept()) {
                InputStream in = socket.getInputStream();
                byte[] buffer = new byte[8192];
                int total = 0;
                // a GET has no body: the request ends with its head
                while (total < buffer.length) {
                    int n = in.read(buffer, total, buffer.length - total);
                    if (n < 0) {
                        break;
                    }
                    total += n;
                    if (new String(buffer, 0, total, StandardCharsets.ISO_8859_1).contains("\r\n\r\n")) {
                        break;
                    }
                }
                OutputStream out = socket.getOutputStream();
                out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            } catch (Exception e) {
                e.printStackTrace();
            }
        }, "loopback-server");
        thread.setDaemon(true);
        thread.start();
        return server.getLocalPort();
    }

    /**
     * Prints the outcome and the process's peak resident set so far (VmHWM, Linux; -1 elsewhere), then exits: the
     * bench script reads both from this line.
     */
    public static void finish(int status, String body) {
        long peakKb = -1;
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    peakKb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (Exception e) {
            // not Linux: the peak is reported as unknown
        }
        String threads = Boolean.getBoolean("bench.threadCpu") ? " thread_cpu_us=" + threadCpu() : "";
        System.out.println("status=" + status + " body=" + body + " vmhwm_kb=" + peakKb + threads);
        System.out.flush();
        System.exit(0);
    }

    /**
     * With -Dbench.threadCpu=true (agent/bench/startup-floor.sh): the CPU time of the threads so far, summed by kind
     * ({@code main}, {@code jit}: the compilers, {@code vm}: GC and VM threads, {@code other}), in microseconds, from
     * /proc/self/task/N/schedstat (Linux; empty elsewhere). Read at exit, when the other threads are idle and their
     * figures exact. Off by default, so that the start-up table's runs pay nothing for it.
     */
    static String threadCpu() {
        long main = 0;
        long jit = 0;
        long vm = 0;
        long other = 0;
        File[] tasks = new File("/proc/self/task").listFiles();
        for (File task : tasks == null ? new File[0] : tasks) {
            try {
                String name = new String(Files.readAllBytes(new File(task, "comm").toPath()), StandardCharsets.UTF_8).trim();
                String stat = new String(Files.readAllBytes(new File(task, "schedstat").toPath()), StandardCharsets.UTF_8);
                long us = Long.parseLong(stat.substring(0, stat.indexOf(' '))) / 1000;
                if (name.equals("java")) {
                    main += us; // the launcher's name for the thread that runs main (and premain)
                } else if (name.startsWith("C1 ") || name.startsWith("C2 ")) {
                    jit += us;
                } else if (name.startsWith("GC ") || name.startsWith("G1 ") || name.startsWith("VM ")) {
                    vm += us;
                } else {
                    other += us;
                }
            } catch (Exception e) {
                // a thread that ended meanwhile
            }
        }
        return "main:" + main + ",jit:" + jit + ",vm:" + vm + ",other:" + other;
    }
}
