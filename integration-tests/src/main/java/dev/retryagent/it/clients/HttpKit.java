package dev.retryagent.it.clients;

import java.io.Closeable;
import java.io.IOException;

/**
 * One client's way to make a call, for the applications that test what the agent does across clients: what they
 * test is the agent, so each says only which client and what request, and the kit says how that client sends it.
 * A kit reads every reply's body to its end (so that its connection is reused) and closes what the call opened.
 * A client that has an asynchronous API has a kit that is also an {@link AsyncHttpKit}.
 */
public interface HttpKit extends Closeable {
    /** The call on the caller's thread: the reply, or the client's own exception. */
    KitReply call(KitRequest request) throws IOException;
}
