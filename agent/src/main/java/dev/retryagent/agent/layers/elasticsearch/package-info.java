/**
 * The Elasticsearch low-level REST client's node loop as a retry layer above its HttpAsyncClient 4
 * (docs/reference.md#layers-above-the-client). Its hook points are declared in {@link
 * dev.retryagent.agent.layers.LayerTable}, with the other layers'; no call is changed.
 *
 * <h2>Why there</h2>
 * Sync: {@code RestClient.performRequest(Request)} picks the nodes ({@code nextNodes()}) and hands them to its private
 * {@code performRequest(NodeTuple, InternalRequest, Exception)}, which sends to one node (the async client's
 * {@code execute(...).get()}, on the caller's thread) and, after an I/O error or a 502, 503 or 504, calls itself with
 * the next node. The public method is entered once per call and every attempt runs inside it. Async: the private
 * {@code performRequestAsync(NodeTuple, InternalRequest, FailureTrackingResponseListener)} sends to one node and is
 * called again, for the next one, from the failed attempt's callback (an I/O reactor thread): hooked so that each
 * attempt runs inside it, on whichever thread starts it.
 *
 * <h2>Retries off</h2>
 * A client of one node ({@code getNodes().size() == 1}) has no next node: no layer (null), the agent retries its
 * calls as any other. More than one: {@code elasticsearch-rest-client}.
 *
 * <h2>Versions checked</h2>
 * 9.5.6 and 8.19.25 (the integration tests; same methods and descriptors in both).
 */
package dev.retryagent.agent.layers.elasticsearch;
