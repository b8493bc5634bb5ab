package dev.retryagent.agent.layers.elasticsearch;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.weaving.RetryLoopHandler;
import org.elasticsearch.client.RestClient;

/**
 * The handler of the Elasticsearch REST client's node loop (its hook points: {@link dev.retryagent.agent.layers.LayerTable}):
 * a client of more than one node tries the next one after a failure (an I/O error, 502, 503 or 504), so its calls are
 * inside a retry layer; a client of one node has nothing to retry on, and is no layer.
 */
public final class ElasticsearchHooks extends RetryLoopHandler {
    public static final String LAYER = "elasticsearch-rest-client";
    public static final String PERFORM_REQUEST = "elasticsearch-rest-client.perform-request";
    public static final String PERFORM_REQUEST_ASYNC = "elasticsearch-rest-client.perform-request-async";

    static {
        Hooks.register(ElasticsearchHooks.class, new ElasticsearchHooks());
    }

    public ElasticsearchHooks() {
        super(PERFORM_REQUEST, PERFORM_REQUEST_ASYNC);
    }

    @Override
    protected String layerOf(String hook, Object self) {
        return self instanceof RestClient ? layerOf((RestClient) self) : null;
    }

    /** The layer a call of {@code client} is made in: null for a client of one node. */
    static String layerOf(RestClient client) {
        return client.getNodes().size() > 1 ? LAYER : null;
    }
}
