package dev.retryagent.engine;

import java.io.IOException;

/** Receives how a whole asynchronous call ended: exactly one of the two methods, exactly once. */
public interface CallCompletion<R> {
    void onResponse(R response);

    void onFailure(IOException failure);
}
