package dev.retryagent.it.clients;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A reply as every kit returns it: the status, the headers (names in lower case) and the whole body. */
public final class KitReply {
    private final int status;
    private final Map<String, List<String>> headers;
    private final byte[] body;

    private KitReply(int status, Map<String, List<String>> headers, byte[] body) {
        this.status = status;
        this.headers = headers;
        this.body = body;
    }

    public int status() {
        return status;
    }

    /** The first value of the header {@code name}, or null. */
    public String header(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    public Map<String, List<String>> headers() {
        return headers;
    }

    public byte[] body() {
        return body.clone();
    }

    public String bodyUtf8() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** A kit's reply in the making: headers in the order the client gives them. */
    static final class Builder {
        private final int status;
        private final Map<String, List<String>> headers = new LinkedHashMap<>();

        Builder(int status) {
            this.status = status;
        }

        Builder header(String name, String value) {
            if (name != null) {
                headers.computeIfAbsent(name.toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(value);
            }
            return this;
        }

        KitReply body(byte[] body) {
            Map<String, List<String>> copy = new LinkedHashMap<>();
            headers.forEach((k, v) -> copy.put(k, Collections.unmodifiableList(v)));
            return new KitReply(status, Collections.unmodifiableMap(copy), body == null ? new byte[0] : body);
        }
    }
}
