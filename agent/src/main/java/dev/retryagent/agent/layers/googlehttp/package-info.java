/**
 * google-http-client's retry loop as a retry layer above its transport (docs/reference.md#layers-above-the-client). Its
 * hook point is declared in {@link dev.retryagent.agent.layers.LayerTable}, with the other layers'; no call is changed.
 *
 * <h2>Why there</h2>
 * {@code com.google.api.client.http.HttpRequest.execute()} holds the loop ({@code do ... while (retryRequest)}, at
 * most {@code numberOfRetries} retries) and is entered once per call on the caller's thread; every attempt goes
 * through the transport's low-level request inside it ({@code NetHttpTransport}: HttpURLConnection;
 * {@code ApacheHttpTransport} of {@code google-http-client-apache-v2}: Apache HttpClient 4), both instrumented.
 *
 * <h2>Retries on and off</h2>
 * The loop retries only when something asks it to: an {@code HttpUnsuccessfulResponseHandler} (such as
 * {@code HttpBackOffUnsuccessfulResponseHandler}) returns true for a response, an {@code HttpIOExceptionHandler}
 * (such as {@code HttpBackOffIOExceptionHandler}) for an I/O error, or the deprecated
 * {@code setRetryOnExecuteIOException(true)}; and only with {@code getNumberOfRetries() > 0} (10 by default). A
 * layer is a request with retries left and an I/O-exception handler, that deprecated switch, or the library's
 * {@code HttpBackOffUnsuccessfulResponseHandler} (a subclass included); with 0 retries it is
 * {@link dev.retryagent.engine.UpperLayer#RETRIES_OFF}; anything else is no layer (null). An unsuccessful-response
 * handler of another class is not taken for a layer: the usual one is a credential's (google-auth's
 * {@code HttpCredentialsAdapter}, google-api-client's {@code Credential}), which retries a 401 once the token is
 * refreshed and nothing else, so that the agent keeps retrying those calls' 503s. An application's own handler that
 * retries server errors is not recognised: its attempts and the agent's multiply, as without this hook.
 *
 * <h2>What it retries</h2>
 * In {@code execute()}, an {@code IOException} of the transport is retried when {@code getRetryOnExecuteIOException()}
 * or the I/O-exception handler says so ({@code HttpBackOffIOExceptionHandler}: while its back-off lasts); a response
 * that is not a success when the unsuccessful-response handler says so ({@code HttpBackOffUnsuccessfulResponseHandler}:
 * when its {@code BackOffRequired} requires a back-off, {@code ON_SERVER_ERROR} by default, a status of 5xx;
 * {@code ALWAYS}), else a redirect, else the deprecated {@code BackOffPolicy}. The handler reads those of the request
 * at the loop's entry: failures retried with that exact handler class or the switch, not known with another handler,
 * not retried without one; statuses by the exact handler class's {@code BackOffRequired} (its two constants), not
 * known for any other handler, {@code BackOffRequired} or a {@code BackOffPolicy}, none without a handler. The
 * outcomes the loop does not retry are the agent's.
 *
 * <h2>Versions checked</h2>
 * 2.2.0 (the integration tests, with {@code NetHttpTransport} and {@code google-http-client-apache-v2} 2.2.0, with
 * both back-off handlers and with the I/O-exception one only); what {@code execute()} and the handlers retry, in the
 * sources of 2.1 and the class files of 2.2.0.
 */
package dev.retryagent.agent.layers.googlehttp;
