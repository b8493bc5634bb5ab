package dev.retryagent.it.clients;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A request as every kit sends it: method, URL, headers in order (a name may come more than once), and a body or
 * none. The body's {@code contentType} is sent as {@code Content-Type} unless the headers carry one; a
 * {@code oneShot} body is one the client cannot send twice (each kit makes it so in its client's own way).
 */
public final class KitRequest {
    private final String method;
    private final String url;
    private final List<Map.Entry<String, String>> headers;
    private final byte[] body;
    private final String contentType;
    private final boolean oneShot;

    private KitRequest(String method, String url, List<Map.Entry<String, String>> headers, byte[] body,
            String contentType, boolean oneShot) {
        this.method = method;
        this.url = url;
        this.headers = headers;
        this.body = body;
        this.contentType = contentType;
        this.oneShot = oneShot;
    }

    public static KitRequest get(String url) {
        return of("GET", url);
    }

    public static KitRequest of(String method, String url) {
        return new KitRequest(method, url, Collections.<Map.Entry<String, String>>emptyList(), null, null, false);
    }

    /** This request with one more header. */
    public KitRequest header(String name, String value) {
        List<Map.Entry<String, String>> more = new ArrayList<>(headers);
        more.add(new AbstractMap.SimpleImmutableEntry<>(name, value));
        return new KitRequest(method, url, Collections.unmodifiableList(more), body, contentType, oneShot);
    }

    /** This request with {@code bytes} as its body; {@code contentType} null: none of the kit's. */
    public KitRequest body(byte[] bytes, String contentType) {
        return new KitRequest(method, url, headers, bytes.clone(), contentType, oneShot);
    }

    /** This request with a body the client can send only once. */
    public KitRequest oneShot() {
        return new KitRequest(method, url, headers, body, contentType, true);
    }

    public String method() {
        return method;
    }

    public String url() {
        return url;
    }

    public List<Map.Entry<String, String>> headers() {
        return headers;
    }

    public boolean hasBody() {
        return body != null;
    }

    /** The body; empty when there is none. */
    public byte[] body() {
        return body == null ? new byte[0] : body.clone();
    }

    /** The body's type, null when the headers name one or there is none. */
    public String contentType() {
        for (Map.Entry<String, String> h : headers) {
            if (h.getKey().toLowerCase(Locale.ROOT).equals("content-type")) {
                return null;
            }
        }
        return contentType;
    }

    public boolean isOneShot() {
        return oneShot;
    }
}
