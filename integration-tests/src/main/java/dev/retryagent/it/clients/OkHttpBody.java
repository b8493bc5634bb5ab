package dev.retryagent.it.clients;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.MediaType;
import okhttp3.RequestBody;
import okio.BufferedSink;

/**
 * An OkHttp body of fixed bytes that counts its writes; a one-shot body ({@code isOneShot()}) reads them from a
 * stream, so a second write sends nothing, as a real one-shot body does. It needs no other kit class, so the
 * applications packaged alone (a Spring Boot jar, a web application) take it by itself.
 */
public final class OkHttpBody extends RequestBody {
    private final byte[] bytes;
    private final MediaType contentType;
    private final boolean oneShot;
    private final AtomicInteger writes;
    private final InputStream stream;

    /** {@code contentType} null: none; {@code writes} counts every {@code writeTo}. */
    public OkHttpBody(byte[] bytes, MediaType contentType, boolean oneShot, AtomicInteger writes) {
        this.bytes = bytes;
        this.contentType = contentType;
        this.oneShot = oneShot;
        this.writes = writes;
        this.stream = new ByteArrayInputStream(bytes);
    }

    @Override
    public MediaType contentType() {
        return contentType;
    }

    @Override
    public long contentLength() {
        return bytes.length;
    }

    @Override
    public boolean isOneShot() {
        return oneShot;
    }

    @Override
    public void writeTo(BufferedSink sink) throws IOException {
        writes.incrementAndGet();
        if (!oneShot) {
            sink.write(bytes);
            return;
        }
        byte[] chunk = new byte[8192];
        int n;
        while ((n = stream.read(chunk)) > 0) {
            sink.write(chunk, 0, n);
        }
    }
}
