package dev.retryagent.agent.clients.jdkhttp;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.weaving.ClientInstrumentation;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.ClientNames;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;

/**
 * What the agent hooks in the JDK's own {@code java.net.http.HttpClient} (Java 11+; names and descriptors checked
 * against the Java 17 and 25 class files by JdkHttpInstrumentationTest):
 *
 * <ul>
 *   <li>entry of {@code jdk.internal.net.http.HttpClientImpl}'s {@code sendAsync(HttpRequest, BodyHandler,
 *       PushPromiseHandler)} and {@code sendAsync(HttpRequest, BodyHandler)}, and of the private
 *       {@code sendAsync(HttpRequest, BodyHandler, PushPromiseHandler, Executor)} that they and {@code send} call
 *       (only {@code send} without an executor), all of which may replace the result. The two-argument
 *       {@code sendAsync} calls the three-argument one; it is hooked too so that the loop runs around whatever
 *       another agent's advice does at its entry when that advice was woven first (the OpenTelemetry agent's starts
 *       one span per call there, and one per attempt at the three-argument one). {@code send} is run below its own
 *       frame: the loop replaces the future it waits for, so that the exception it throws is made there, once, as
 *       without the agent. Every client the builder makes is an {@code HttpClientFacade} over an
 *       {@code HttpClientImpl}, and the facade's {@code send}/{@code sendAsync} call these: one hook per public
 *       entry, whatever wraps the client. Each attempt is a whole exchange of the same immutable request (a copy
 *       with the marker header when it carries one), a {@code sendAsync}, or for {@code send} what it does itself,
 *       so the client's redirects, authentication, cookies, HTTP/2 and TLS run per attempt exactly as without the
 *       agent;</li>
 *   <li>entry of the private {@code MultiExchange.getExceptionalCF(Throwable, ExchangeImpl)} (or {@code (Throwable)}, in
 *       earlier Java 17 updates), where the client
 *       decides on its own resends: under {@code builtInRetries: replace} its resend after a
 *       {@code ConnectionExpiredException} (a pooled connection that failed before a byte of the answer, often after
 *       the server had read the request) is switched off for the attempts the agent runs;</li>
 *   <li>entry of {@code MultiExchange.responseAsync(Executor)}: an attempt of the agent's learns its exchange, whose
 *       current request, after the redirects the client followed, says where the response went ({@link LastHop}).</li>
 * </ul>
 *
 * The module {@code java.net.http} is defined to the platform class loader. Its woven code calls {@code Hooks} on
 * the bootstrap path, so {@link #prepare} gives it a read edge to the bootstrap loader's unnamed module, and opens
 * {@code jdk.internal.net.http} to the handler's module (the agent jar's loader, which sees {@code java.net.http}
 * through its parents), for the fields of {@code MultiExchange} that the resend switch and {@link LastHop} use, and
 * for the private {@code sendAsync} a {@code send}'s attempts call. The
 * adapter is compiled for Java 8 like the rest of the agent: it reaches {@code java.net.http}'s public types through
 * method handles and implements {@code BodyHandler} with a {@link java.lang.reflect.Proxy} ({@link JdkHttpApi}), so
 * no class file of the jar needs Java 11 and nothing of it loads on a JVM without the module.
 *
 * <p>This class names no {@code java.net.http} type and loads on Java 8, where {@link #prepare} does nothing.
 */
public final class JdkHttpInstrumentation extends ClientInstrumentation {
    static final String CLIENT_IMPL = "jdk.internal.net.http.HttpClientImpl";
    static final String MULTI_EXCHANGE = "jdk.internal.net.http.MultiExchange";
    /** The private {@code sendAsync(HttpRequest, BodyHandler, PushPromiseHandler, Executor)} that all three call. */
    static final String SEND_INLINE_DESCRIPTOR = "(Ljava/net/http/HttpRequest;Ljava/net/http/HttpResponse$BodyHandler;"
            + "Ljava/net/http/HttpResponse$PushPromiseHandler;Ljava/util/concurrent/Executor;)"
            + "Ljava/util/concurrent/CompletableFuture;";
    static final String SEND_ASYNC_DESCRIPTOR = "(Ljava/net/http/HttpRequest;Ljava/net/http/HttpResponse$BodyHandler;"
            + "Ljava/net/http/HttpResponse$PushPromiseHandler;)Ljava/util/concurrent/CompletableFuture;";
    static final String SEND_ASYNC_2_DESCRIPTOR = "(Ljava/net/http/HttpRequest;"
            + "Ljava/net/http/HttpResponse$BodyHandler;)Ljava/util/concurrent/CompletableFuture;";
    /** {@code getExceptionalCF(Throwable, ExchangeImpl)}: Java 25, and Java 17 updates from 17.0.16 or so. */
    static final String EXCEPTIONAL_DESCRIPTOR = "(Ljava/lang/Throwable;Ljdk/internal/net/http/ExchangeImpl;)"
            + "Ljava/util/concurrent/CompletableFuture;";
    /** {@code getExceptionalCF(Throwable)}: earlier Java 17 updates (17.0.15 has it). */
    static final String EXCEPTIONAL_DESCRIPTOR_17 = "(Ljava/lang/Throwable;)Ljava/util/concurrent/CompletableFuture;";
    /** {@code MultiExchange.responseAsync(Executor)}, where the exchange of every {@code send} starts. */
    static final String RESPONSE_ASYNC_DESCRIPTOR = "(Ljava/util/concurrent/Executor;)Ljava/util/concurrent/CompletableFuture;";
    static final String INTERNAL_PACKAGE = "jdk.internal.net.http";

    public JdkHttpInstrumentation() {
        super(ClientNames.JDK_HTTPCLIENT, "dev.retryagent.agent.clients.jdkhttp.JdkHttpHooks",
                HookPoint.entryMayReplace(JdkHttpHooks.SEND, CLIENT_IMPL, "sendAsync", SEND_INLINE_DESCRIPTOR),
                HookPoint.entryMayReplace(JdkHttpHooks.SEND_ASYNC, CLIENT_IMPL, "sendAsync", SEND_ASYNC_DESCRIPTOR),
                HookPoint.entry(JdkHttpHooks.RESEND, MULTI_EXCHANGE, "getExceptionalCF", EXCEPTIONAL_DESCRIPTOR),
                HookPoint.entry(JdkHttpHooks.RESEND, MULTI_EXCHANGE, "getExceptionalCF", EXCEPTIONAL_DESCRIPTOR_17),
                HookPoint.entry(JdkHttpHooks.EXCHANGE, MULTI_EXCHANGE, "responseAsync", RESPONSE_ASYNC_DESCRIPTOR),
                HookPoint.entryMayReplace(JdkHttpHooks.SEND_ASYNC_2, CLIENT_IMPL, "sendAsync",
                        SEND_ASYNC_2_DESCRIPTOR));
    }

    @Override
    public boolean prepare(Instrumentation inst) {
        try {
            return openJavaNetHttp(inst);
        } catch (Throwable t) {
            if (t instanceof VirtualMachineError) {
                throw (VirtualMachineError) t;
            }
            RetryLog.agent(Level.WARNING, "client-disabled client=" + ClientNames.JDK_HTTPCLIENT
                    + " error=" + t.getClass().getName() + " message=" + t.getMessage()
                    + "; java.net.http calls run without retries");
            return false;
        }
    }

    /**
     * {@code java.net.http} reads the bootstrap loader's unnamed module (where {@link Hooks} is) and opens
     * {@link #INTERNAL_PACKAGE} to this class's module. True on a JVM without the module (Java 8: the hooked classes
     * never load) and when both edges hold afterwards.
     */
    static boolean openJavaNetHttp(Instrumentation inst) throws Exception {
        Class<?> moduleClass;
        try {
            moduleClass = Class.forName("java.lang.Module");
        } catch (ClassNotFoundException java8) {
            return true;
        }
        Class<?> layerClass = Class.forName("java.lang.ModuleLayer");
        Object bootLayer = layerClass.getMethod("boot").invoke(null);
        Object found = layerClass.getMethod("findModule", String.class).invoke(bootLayer, "java.net.http");
        Object javaNetHttp = ((java.util.Optional<?>) found).orElse(null); // java.util.Optional is Java 8
        if (javaNetHttp == null) {
            return true; // a runtime image without the module: nothing to hook
        }
        if (Hooks.class.getClassLoader() != null) {
            RetryLog.agent(Level.WARNING, "client-disabled client=" + ClientNames.JDK_HTTPCLIENT
                    + " reason=hooks-not-on-bootstrap-path; java.net.http calls run without retries");
            return false;
        }
        Method getModule = Class.class.getMethod("getModule");
        Object bootstrapUnnamed = getModule.invoke(Hooks.class);
        Object handlerModule = getModule.invoke(JdkHttpInstrumentation.class);
        Map<String, Set<Object>> opens = Collections.singletonMap(INTERNAL_PACKAGE, Collections.singleton(handlerModule));
        Method redefineModule = Instrumentation.class.getMethod("redefineModule",
                moduleClass, Set.class, Map.class, Map.class, Set.class, Map.class);
        redefineModule.invoke(inst, javaNetHttp, Collections.singleton(bootstrapUnnamed), Collections.emptyMap(),
                opens, Collections.emptySet(), Collections.emptyMap());
        boolean reads = (Boolean) moduleClass.getMethod("canRead", moduleClass).invoke(javaNetHttp, bootstrapUnnamed);
        boolean open = (Boolean) moduleClass.getMethod("isOpen", String.class, moduleClass)
                .invoke(javaNetHttp, INTERNAL_PACKAGE, handlerModule);
        if (!reads || !open) {
            RetryLog.agent(Level.WARNING, "client-disabled client=" + ClientNames.JDK_HTTPCLIENT
                    + " reason=java.net.http-not-opened; java.net.http calls run without retries");
            return false;
        }
        return true;
    }
}
