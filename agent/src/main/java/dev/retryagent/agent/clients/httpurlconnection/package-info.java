/**
 * Retries for the JDK's own {@code HttpURLConnection}, http and https, on Java 8 through 25 (tested on 17 and 25).
 *
 * <h2>Where the request is re-issued</h2>
 * The JDK sends a request lazily, from whichever read the application makes first; every read path
 * ({@code getInputStream}, {@code getResponseCode}, {@code getResponseMessage}, the header getters,
 * {@code getContentLength*}) goes through {@code getInputStream()} declared in
 * {@code sun.net.www.protocol.http.HttpURLConnection}. That method gets an {@code ENTRY_MAY_REPLACE} hook
 * ({@link dev.retryagent.agent.clients.httpurlconnection.HttpUrlConnectionInstrumentation}); HTTPS runs it too, through the
 * {@code DelegateHttpsURLConnection} its public wrapper delegates to (the wrapper itself is not hooked, so attempts
 * never square). The first read of a connection runs the shared {@code RetryLoop} in the hook's handler
 * ({@code bootloader.httpurlconnection.HttpUrlConnectionHooks}), under the connection's own lock; each attempt is a nested
 * {@code getInputStream()} on the application's own connection object, which the hook's per-thread re-entrancy guard
 * lets through to the JDK's body: the JDK connects, writes the head and the buffered body ({@code PosterOutputStream},
 * which it keeps until a success) and parses the response, exactly as for a call of its own. A status of 400 or more
 * makes that body throw; the loop treats it as a response (status and Retry-After read back through
 * {@code getResponseCode()} and {@code getHeaderField}), and if it is the last, the application gets that very
 * exception. The JDK follows redirects inside that body and leaves the connection's URL at the last hop, where later
 * attempts go too: a response is decided under the rule of that URL
 * ({@code HttpUrlConnectionSyncExchange.decidedUnder}). Once the connection has a result, later reads (the
 * application's next getter, the JDK's own re-entries) pass through untouched. Streaming modes write the head and
 * body from {@code getOutputStream()}: they are never retried, so their one head goes out unmarked, unless the call
 * is made inside an attempt of another call the agent retries: then an entry hook on {@code getOutputStream()} sets
 * the enclosing attempt's marker. A buffered body's connection is opened in {@code getOutputStream()} too, so that hook
 * is also where a refused connection is kept from the application when the first read may retry the request.
 *
 * <h2>How the connection is reset between attempts</h2>
 * {@code bootloader.httpurlconnection.HttpUrlConnectionFields}, through reflection on the fields of
 * {@code sun.net.www.protocol.http.HttpURLConnection} (checked against Java 17 and 25; a missing required one
 * disables these retries, logged once):
 * <ol>
 *   <li>release the last attempt: close a buffered {@code errorStream}, then the JDK's {@code disconnect()}, which
 *       closes the response stream (or the socket when there is none), keeps the keep-alive cache from handing the
 *       socket out again, and clears {@code http}, {@code connected}, {@code responseCode}, the cached response;</li>
 *   <li>forget its result: {@code inputStream}, {@code rememberedException}, {@code cachedInputStream},
 *       {@code responses} ({@code MessageHeader.reset()}: a next attempt that fails before a status line must not
 *       report this one's), {@code filteredHeaders}, {@code responseMessage} (of {@code java.net.HttpURLConnection}),
 *       {@code connected} (of {@code java.net.URLConnection});</li>
 *   <li>let the JDK build the head again: the request line is taken out of {@code requests} and
 *       {@code setRequests} cleared (Java 17 prepends the request line unconditionally, Java 25 when it is not at
 *       index 0), so cookies and pre-emptive credentials are applied as on a first request; the application's
 *       headers, the Idempotency-Key among them, stay;</li>
 *   <li>{@code failedOnce} cleared: each attempt behaves like the JDK's first (its own write retry and the
 *       keep-alive cache included);</li>
 *   <li>the marker set in {@code requests} ({@code MessageHeader.set}), since {@code setRequestProperty} refuses
 *       once the connection is connecting.</li>
 * </ol>
 * The hooked class and these fields are in {@code java.base}: the packages are opened to the handler's module at
 * start-up ({@link dev.retryagent.agent.clients.httpurlconnection.HttpUrlConnectionInstrumentation#prepare}).
 *
 * <h2>One retry layer (docs/reference.md#one-retry-layer)</h2>
 * <ul>
 *   <li><b>The JDK's hidden resend.</b> {@code sun.net.www.http.HttpClient.parseHTTP} sends a buffered request a
 *       second time when the connection fails or closes before the status line. Under {@code builtInRetries:
 *       replace}, for an attempt the agent runs in mode {@code enforce}, an entry hook on the private
 *       {@code writeRequests()} (every request head, redirect hops and the JDK's rewrite after a failed write
 *       included) calls the client's public {@code setDoNotRetry(true)}: the failure reaches the retry loop, which
 *       recovers a GET and sends a POST without key once. A request the policy would not retry, on a connection
 *       from the keep-alive cache that the server has already closed (its socket polled without waiting), keeps the
 *       JDK's resend: that resend goes to a server that never saw the request ({@code bootloader.httpurlconnection.HiddenResend}).</li>
 *   <li><b>Nested calls.</b> Each attempt runs in an {@code AttemptScope}: another connection's call made on this
 *       thread meanwhile (an {@code Authenticator}'s own lookup, or any instrumented client's) is executed once and
 *       marked with this attempt's number. The hook's re-entrancy guard is per connection, so such a call reaches
 *       the loop while the handler's own re-entries on this connection run the JDK's body.</li>
 * </ul>
 */
package dev.retryagent.agent.clients.httpurlconnection;
