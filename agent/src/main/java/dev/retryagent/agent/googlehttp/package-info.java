/**
 * google-http-client's retry loop as a retry layer above its transport (SPEC 4.14). What is hooked:
 * {@link dev.retryagent.agent.googlehttp.GoogleHttpInstrumentation}; no call is changed.
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
 * {@code setRetryOnExecuteIOException(true)}; and only with {@code getNumberOfRetries() > 0} (10 by default). None of
 * them set: no layer (null); one set with 0 retries: {@link dev.retryagent.engine.UpperLayer#RETRIES_OFF}; one set
 * with retries: {@code google-http-client}. A handler that never asks for a retry on a retryable outcome (one that
 * only refreshes credentials on 401) still counts as the layer.
 *
 * <h2>Versions checked</h2>
 * 2.2.0 (the integration tests, with {@code NetHttpTransport} and {@code google-http-client-apache-v2} 2.2.0).
 */
package dev.retryagent.agent.googlehttp;
