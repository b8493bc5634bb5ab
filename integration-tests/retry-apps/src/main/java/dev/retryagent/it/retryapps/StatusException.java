package dev.retryagent.it.retryapps;

import java.io.IOException;

/** A response status the application treats as a failure worth retrying (503): the status of the last attempt. */
final class StatusException extends IOException {
    final int status;

    StatusException(int status) {
        super("status " + status);
        this.status = status;
    }
}
