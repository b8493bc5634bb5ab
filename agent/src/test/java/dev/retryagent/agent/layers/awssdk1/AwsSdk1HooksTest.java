package dev.retryagent.agent.layers.awssdk1;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.amazonaws.ClientConfiguration;
import com.amazonaws.http.AmazonHttpClient;
import com.amazonaws.retry.PredefinedRetryPolicies;
import dev.retryagent.agent.layers.LayerTable;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.engine.UpperLayer;
import java.lang.reflect.Method;
import net.bytebuddy.jar.asm.Type;
import org.junit.jupiter.api.Test;

/** What the handler reads from the SDK's own client, built as the SDK builds it, per retry configuration. */
class AwsSdk1HooksTest {
    private static final HookPoint LOOP = LayerTable.named(UpperLayer.AWS_SDK_V1).hookPoints().get(0);

    private static int maxErrorRetry(ClientConfiguration config) throws Exception {
        Class<?> executor = Class.forName(LOOP.className());
        AmazonHttpClient client = new AmazonHttpClient(config);
        try {
            return new AwsSdk1Hooks.Accessors(executor).clientMaxErrorRetry(client);
        } finally {
            client.shutdown();
        }
    }

    @Test
    void noRetryPolicyOrZeroRetriesIsRetriesOff() throws Exception {
        assertEquals(0, maxErrorRetry(new ClientConfiguration().withRetryPolicy(PredefinedRetryPolicies.NO_RETRY_POLICY)));
        assertEquals(0, maxErrorRetry(new ClientConfiguration().withMaxErrorRetry(0)));
        assertEquals(UpperLayer.RETRIES_OFF, AwsSdk1Hooks.layerFor(0));
    }

    @Test
    void theDefaultsRetry() throws Exception {
        assertEquals(3, maxErrorRetry(new ClientConfiguration()));
        assertEquals(UpperLayer.AWS_SDK_V1, AwsSdk1Hooks.layerFor(3));
        assertEquals(UpperLayer.AWS_SDK_V1, AwsSdk1Hooks.layerFor(-1));
    }

    @Test
    void theHookedMethodIsTheExecutorLoopWithThisDescriptor() throws Exception {
        Class<?> executor = Class.forName(LOOP.className());
        Method m = executor.getDeclaredMethod(LOOP.methodName());
        assertEquals(LOOP.descriptor(), Type.getMethodDescriptor(m));
    }
}
