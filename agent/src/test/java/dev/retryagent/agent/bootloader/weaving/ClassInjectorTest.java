package dev.retryagent.agent.bootloader.weaving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.layers.LayerTable;
import dev.retryagent.agent.layers.failsafe.FailsafeHooks;
import dev.retryagent.agent.clients.httpclient5.HttpClient5Instrumentation;
import dev.retryagent.agent.clients.okhttp.OkHttpInstrumentation;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The adapter classes a client's loader is given are derived from the agent jar, not listed by hand. */
class ClassInjectorTest {
    private static final Path CLASSES = Paths.get("target", "classes");

    /** Every class compiled into the client's package but its description and package-info. */
    private static Set<String> compiled(String pkg, Class<?> description) throws IOException {
        try (Stream<Path> files = Files.list(CLASSES.resolve(pkg.replace('.', '/')))) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".class"))
                    .map(n -> pkg + "." + n.substring(0, n.length() - ".class".length()))
                    .filter(n -> !n.startsWith(description.getName()))
                    .filter(n -> !n.endsWith(".package-info"))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    @Test
    void theAdapterClassesOfAClientAreItsPackageButItsDescriptionSupertypesFirst() throws Exception {
        for (ClientInstrumentation client : List.of(new OkHttpInstrumentation(), new HttpClient5Instrumentation())) {
            String pkg = client.getClass().getPackageName();
            Map<String, byte[]> adapters = ClassInjector.adapterClasses(getClass().getClassLoader(), client);
            assertEquals(compiled(pkg, client.getClass()), new TreeSet<>(adapters.keySet()), client.name());
            assertTrue(adapters.containsKey(client.handlerClass()));
            assertSupertypesFirst(new ArrayList<>(adapters.keySet()));
            for (String name : adapters.keySet()) {
                Class.forName(name, false, getClass().getClassLoader());
            }
        }
        List<String> order = new ArrayList<>(
                ClassInjector.adapterClasses(getClass().getClassLoader(), new HttpClient5Instrumentation()).keySet());
        String exchange = "dev.retryagent.agent.clients.httpclient5.HttpClient5SyncExchange";
        assertTrue(order.indexOf(exchange) < order.indexOf(exchange + "$Chain"), order.toString());
        assertTrue(order.indexOf(exchange) < order.indexOf(exchange + "$Minimal"), order.toString());
    }

    /** A retry layer's description is no class of its package: the handler's whole package is its adapter classes. */
    @Test
    void theAdapterClassesOfARetryLayerAreItsWholePackage() throws Exception {
        ClientInstrumentation layer = LayerTable.named(FailsafeHooks.LAYER);
        Map<String, byte[]> adapters = ClassInjector.adapterClasses(getClass().getClassLoader(), layer);
        assertEquals(compiled("dev.retryagent.agent.layers.failsafe", ClientInstrumentation.class),
                new TreeSet<>(adapters.keySet()));
        assertTrue(adapters.containsKey("dev.retryagent.agent.layers.failsafe.Failsafe2"), adapters.keySet().toString());
        assertTrue(adapters.containsKey(layer.handlerClass()));
    }

    /** As the agent runs: the classes are listed from the agent jar, with the same result. */
    @Test
    void fromAJarTheSameClassesAreFound(@TempDir Path dir) throws Exception {
        ClientInstrumentation client = new OkHttpInstrumentation();
        Path jar = dir.resolve("agent with space.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
             Stream<Path> files = Files.walk(CLASSES.resolve("dev/retryagent/agent"))) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                out.putNextEntry(new JarEntry(CLASSES.relativize(file).toString().replace('\\', '/')));
                Files.copy(file, (OutputStream) out);
                out.closeEntry();
            }
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
            Map<String, byte[]> fromJar = ClassInjector.adapterClasses(loader, client);
            Map<String, byte[]> fromDirectory = ClassInjector.adapterClasses(getClass().getClassLoader(), client);
            assertEquals(new ArrayList<>(fromDirectory.keySet()), new ArrayList<>(fromJar.keySet()));
            for (String name : fromJar.keySet()) {
                assertTrue(java.util.Arrays.equals(fromDirectory.get(name), fromJar.get(name)), name);
            }
        }
    }

    private void assertSupertypesFirst(List<String> order) throws ClassNotFoundException {
        for (int i = 0; i < order.size(); i++) {
            Class<?> c = Class.forName(order.get(i), false, getClass().getClassLoader());
            List<Class<?>> supertypes = new ArrayList<>(List.of(c.getInterfaces()));
            if (c.getSuperclass() != null) {
                supertypes.add(c.getSuperclass());
            }
            for (Class<?> s : supertypes) {
                int at = order.indexOf(s.getName());
                assertTrue(at < i, s.getName() + " after " + c.getName() + " in " + order);
            }
        }
    }
}
