/**
 * The JDK's {@code java.net.http.HttpClient} (Java 11+): {@code send} and {@code sendAsync}, HTTP/1.1 and HTTP/2,
 * each attempt a whole send of the same immutable request, the decision taken when the response head arrives (the
 * application's {@code BodyHandler} gets only the response it is given; the others are drained). Java 8 class files:
 * the client's types are reached by reflection and one {@link java.lang.reflect.Proxy}. See
 * {@link dev.retryagent.agent.clients.jdkhttp.JdkHttpInstrumentation}.
 */
package dev.retryagent.agent.clients.jdkhttp;
