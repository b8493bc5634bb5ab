package dev.retryagent.policy;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/** A rule's {@code match}: every key given must match; a key left out matches anything. */
public final class Match {
    /** The client names a rule can match on. */
    public static final Set<String> CLIENTS = ClientNames.ALL;

    private static final Match ANY = new Match(null, -1, null, Collections.<String>emptySet(), null);

    private final Glob host;
    private final int port;
    private final Glob path;
    private final Set<String> methods;
    private final String client;

    /**
     * @param host    host glob or null
     * @param port    port or -1 for any
     * @param path    path glob or null
     * @param methods methods (any case) or empty for any
     * @param client  one of {@link #CLIENTS} or null
     */
    public Match(String host, int port, String path, Set<String> methods, String client) {
        this.host = host == null ? null : Glob.host(host);
        this.port = port;
        this.path = path == null ? null : Glob.path(path);
        Set<String> upper = new LinkedHashSet<String>();
        for (String method : methods) {
            upper.add(method.toUpperCase(Locale.ROOT));
        }
        this.methods = Collections.unmodifiableSet(upper);
        this.client = client;
    }

    public static Match any() {
        return ANY;
    }

    /** The host glob, or null when any host matches. */
    public Glob host() {
        return host;
    }

    /** The port, or -1 when any port matches. */
    public int port() {
        return port;
    }

    /** The path glob, or null when any path matches. */
    public Glob path() {
        return path;
    }

    /** Upper-case methods; empty when any method matches. */
    public Set<String> methods() {
        return methods;
    }

    /** The client name, or null when any client matches. */
    public String client() {
        return client;
    }

    public boolean matches(String client, String method, String host, int port, String path) {
        return (this.client == null || this.client.equals(client))
                && (this.port < 0 || this.port == port)
                && (methods.isEmpty() || methods.contains(method))
                && (this.host == null || this.host.matches(host))
                && (this.path == null || this.path.matches(path));
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        if (host != null) {
            sb.append("host: \"").append(host).append("\", ");
        }
        if (port >= 0) {
            sb.append("port: ").append(port).append(", ");
        }
        if (path != null) {
            sb.append("path: \"").append(path).append("\", ");
        }
        if (!methods.isEmpty()) {
            sb.append("methods: ").append(methods).append(", ");
        }
        if (client != null) {
            sb.append("client: ").append(client).append(", ");
        }
        if (sb.length() > 1) {
            sb.setLength(sb.length() - 2);
        }
        return sb.append('}').toString();
    }
}
