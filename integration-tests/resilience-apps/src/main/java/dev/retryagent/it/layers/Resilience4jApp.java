package dev.retryagent.it.layers;

import dev.retryagent.it.apps.LayerCalls;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.net.HttpURLConnection;
import java.net.URL;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * HttpURLConnection calls in a Resilience4j {@code Retry} of the call's retries + 1 attempts, 10 ms apart, retrying
 * an {@code IOException} (a 503 is one: {@link LayerCalls.StatusException}). Ways: {@code execute}
 * ({@code retry.executeSupplier}), {@code decorate} ({@code Retry.decorateSupplier(retry, s).get()}), {@code checked}
 * ({@code Retry.decorateCheckedSupplier}: vavr's {@code CheckedFunction0} in 1.x, resilience4j-core's
 * {@code CheckedSupplier} in 2.x, called by reflection so that one build runs on both). Compiled against 2.4.0, run
 * against 2.4.0 and 1.7.1 with only the API they share.
 */
public final class Resilience4jApp {
    private Resilience4jApp() {
    }

    public static void main(String[] args) {
        LayerCalls.line("APP", "library", "resilience4j", "version", Retry.class.getPackage().getImplementationVersion());
        LayerCalls.run(args, (method, way, retries, url) -> {
            Retry retry = Retry.of("http", RetryConfig.custom().maxAttempts(retries + 1)
                    .waitDuration(Duration.ofMillis(10)).retryExceptions(IOException.class, UncheckedIOException.class)
                    .build());
            switch (way) {
                case "execute":
                    return retry.executeSupplier(() -> unchecked(method, url));
                case "decorate":
                    return Retry.decorateSupplier(retry, () -> unchecked(method, url)).get();
                case "checked":
                    return decorateChecked(retry, () -> http(method, url));
                default:
                    throw new IllegalArgumentException(way);
            }
        });
    }

    private static int unchecked(String method, String url) {
        try {
            return http(method, url);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code Retry.decorateCheckedSupplier(retry, call)} and its result called, whichever functional type it takes. */
    private static int decorateChecked(Retry retry, Callable<Integer> call) throws Exception {
        Method decorate = null;
        for (Method m : Retry.class.getMethods()) {
            if (m.getName().equals("decorateCheckedSupplier") && Modifier.isStatic(m.getModifiers())) {
                decorate = m;
            }
        }
        Class<?> type = decorate.getParameterTypes()[1];
        Method sam = single(type);
        Object supplier = Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[]{type}, (proxy, m, a) -> {
            if (m.getName().equals(sam.getName()) && m.getParameterCount() == 0) {
                return call.call();
            }
            if (m.getName().equals("hashCode")) {
                return System.identityHashCode(proxy);
            }
            if (m.getName().equals("equals")) {
                return proxy == a[0];
            }
            return "checked-supplier";
        });
        try {
            Object decorated = decorate.invoke(null, retry, supplier);
            return (Integer) sam.invoke(decorated);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw cause instanceof Exception ? (Exception) cause : new RuntimeException(cause);
        }
    }

    /** The one abstract method of a functional interface. */
    private static Method single(Class<?> type) {
        for (Method m : type.getMethods()) {
            if (Modifier.isAbstract(m.getModifiers()) && m.getParameterCount() == 0) {
                return m;
            }
        }
        throw new IllegalArgumentException(type.getName());
    }

    static int http(String method, String url) throws IOException {
        LayerCalls.attempt();
        HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
        c.setConnectTimeout(2000);
        c.setReadTimeout(5000);
        c.setRequestMethod(method);
        if (method.equals("POST")) {
            c.setDoOutput(true);
            c.setRequestProperty("Content-Type", "application/json");
            try (OutputStream out = c.getOutputStream()) {
                out.write(LayerCalls.BODY);
            }
        }
        int status = c.getResponseCode();
        try (InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
            if (in != null) {
                in.readAllBytes();
            }
        }
        if (status == 503) {
            throw new LayerCalls.StatusException(status);
        }
        return status;
    }
}
