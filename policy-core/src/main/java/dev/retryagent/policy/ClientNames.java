package dev.retryagent.policy;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The names of the clients the agent instruments, as a rule's {@code match: { client: ... }} spells them and as
 * logs and metrics report them. The one place they are written: the agent's adapters name their client with these.
 */
public final class ClientNames {
    public static final String HTTP_URL_CONNECTION = "httpurlconnection";
    public static final String OKHTTP = "okhttp";
    public static final String APACHE_HTTPCLIENT5 = "apache-httpclient5";
    public static final String APACHE_HTTPCLIENT4 = "apache-httpclient4";
    public static final String JDK_HTTPCLIENT = "jdk-httpclient";
    /** Reactor Netty's {@code HttpClient}, and so Spring's {@code WebClient} on its default connector. */
    public static final String REACTOR_NETTY = "reactor-netty";

    /** Every client name, in the order the docs list them. */
    public static final Set<String> ALL = Collections.unmodifiableSet(new LinkedHashSet<String>(
            Arrays.asList(HTTP_URL_CONNECTION, OKHTTP, APACHE_HTTPCLIENT5,
                    APACHE_HTTPCLIENT4, JDK_HTTPCLIENT, REACTOR_NETTY)));

    private ClientNames() {
    }
}
