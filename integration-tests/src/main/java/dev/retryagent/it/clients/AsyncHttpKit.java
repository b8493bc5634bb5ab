package dev.retryagent.it.clients;

import java.util.concurrent.CompletableFuture;

/** A kit whose client has an asynchronous API. */
public interface AsyncHttpKit extends HttpKit {
    /**
     * The call through the client's asynchronous API: the future completes with the reply or fails with the
     * client's exception. Cancelling the future cancels the client's call.
     */
    CompletableFuture<KitReply> callAsync(KitRequest request);
}
