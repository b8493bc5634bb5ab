package dev.retryagent.agent.elasticsearch;

import dev.retryagent.agent.instrument.ClientInstrumentation;
import dev.retryagent.agent.instrument.HookPoint;

/**
 * The Elasticsearch low-level REST client's try-the-next-node loop, a retry layer above its HttpAsyncClient 4
 * (SPEC 4.14): entry and exit of {@code org.elasticsearch.client.RestClient.performRequest(Request)} (the sync path,
 * whose private overload recurses once per node) and of its private
 * {@code performRequestAsync(NodeTuple, InternalRequest, FailureTrackingResponseListener)} (the async path, entered
 * once per node, the next from the failed attempt's callback thread). See {@link dev.retryagent.agent.elasticsearch}.
 * Names no library type.
 */
public final class ElasticsearchInstrumentation extends ClientInstrumentation {
    static final String REST_CLIENT = "org.elasticsearch.client.RestClient";
    static final String PERFORM_REQUEST_DESCRIPTOR = "(Lorg/elasticsearch/client/Request;)Lorg/elasticsearch/client/Response;";
    static final String PERFORM_REQUEST_ASYNC_DESCRIPTOR = "(Lorg/elasticsearch/client/RestClient$NodeTuple;"
            + "Lorg/elasticsearch/client/RestClient$InternalRequest;"
            + "Lorg/elasticsearch/client/RestClient$FailureTrackingResponseListener;)V";

    public ElasticsearchInstrumentation() {
        super(ElasticsearchHooks.LAYER, "dev.retryagent.agent.elasticsearch.ElasticsearchHooks",
                HookPoint.retryLoop(ElasticsearchHooks.PERFORM_REQUEST, REST_CLIENT, "performRequest",
                        PERFORM_REQUEST_DESCRIPTOR),
                HookPoint.retryLoop(ElasticsearchHooks.PERFORM_REQUEST_ASYNC, REST_CLIENT, "performRequestAsync",
                        PERFORM_REQUEST_ASYNC_DESCRIPTOR));
    }
}
