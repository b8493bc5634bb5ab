package dev.retryagent.agent.layers.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.layers.LayerTable;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import java.io.IOException;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.bytebuddy.jar.asm.Type;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.Test;

/** A client of several nodes is a layer, one of one node is not (nothing is sent). */
class ElasticsearchHooksTest {
    @Test
    void oneNodeIsNoLayerTwoAre() throws IOException {
        try (RestClient one = RestClient.builder(new HttpHost("127.0.0.1", 9)).build()) {
            assertNull(new ElasticsearchHooks().retryLayer(ElasticsearchHooks.PERFORM_REQUEST, one, new Object[1]));
        }
        try (RestClient two = RestClient.builder(new HttpHost("127.0.0.1", 9), new HttpHost("127.0.0.1", 10)).build()) {
            assertEquals(ElasticsearchHooks.LAYER, new ElasticsearchHooks()
                    .retryLayer(ElasticsearchHooks.PERFORM_REQUEST, two, new Object[1]).layer());
        }
    }

    @Test
    void theHookedMethodsHaveTheseDescriptors() {
        Set<String> found = new HashSet<>();
        for (Method m : RestClient.class.getDeclaredMethods()) {
            found.add(m.getName() + Type.getMethodDescriptor(m));
        }
        List<HookPoint> points = LayerTable.named(ElasticsearchHooks.LAYER).hookPoints();
        assertEquals(2, points.size());
        for (HookPoint point : points) {
            assertEquals(RestClient.class.getName(), point.className());
            assertTrue(found.contains(point.methodName() + point.descriptor()), point.toString());
        }
    }
}
