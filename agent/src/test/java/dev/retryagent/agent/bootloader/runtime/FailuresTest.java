package dev.retryagent.agent.bootloader.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.retryagent.policy.FailureKind;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.ProtocolException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

class FailuresTest {
    @Test
    void refusedAndUnreachableAreConnectFailures() {
        assertEquals(FailureKind.CONNECT, Failures.byJdkType(new ConnectException("Connection refused")));
        assertEquals(FailureKind.CONNECT, Failures.byJdkType(new NoRouteToHostException("No route to host")));
        assertEquals(FailureKind.CONNECT, Failures.byJdkType(new ConnectException("Socket closed")),
                "a ConnectException is a connect failure whatever its message");
    }

    @Test
    void aTimeoutIsAConnectFailureOnlyWhenItSaysConnect() {
        assertEquals(FailureKind.CONNECT, Failures.byJdkType(new SocketTimeoutException("Connect timed out")));
        assertEquals(FailureKind.CONNECT, Failures.byJdkType(new SocketTimeoutException("connect timed out")));
        assertEquals(FailureKind.TIMEOUT, Failures.byJdkType(new SocketTimeoutException("Read timed out")));
        assertEquals(FailureKind.TIMEOUT, Failures.byJdkType(new SocketTimeoutException("timeout")));
        assertEquals(FailureKind.TIMEOUT, Failures.byJdkType(new SocketTimeoutException()));
        assertEquals(FailureKind.TIMEOUT, Failures.byJdkType(
                new SocketTimeoutException("500 milliseconds timeout on connection http-outgoing-3 [ACTIVE]")));
    }

    @Test
    void socketErrorsAndACutShortStreamAreResets() {
        assertEquals(FailureKind.RESET, Failures.byJdkType(new SocketException("Connection reset")));
        assertEquals(FailureKind.RESET, Failures.byJdkType(new SocketException("Broken pipe")));
        assertEquals(FailureKind.RESET, Failures.byJdkType(new SocketException("Socket closed")),
                "whether a socket closed here is a reset is the client's to say");
        assertEquals(FailureKind.RESET, Failures.byJdkType(new EOFException()));
        assertEquals(FailureKind.RESET, Failures.byJdkType(new SSLException("closed", new SocketException("Connection reset"))));
        assertEquals(FailureKind.RESET, Failures.byJdkType(new SSLException("closed", new EOFException())));
    }

    @Test
    void whatARetryWouldNotChangeIsOther() {
        assertEquals(FailureKind.OTHER, Failures.byJdkType(new UnknownHostException("nowhere.invalid")));
        assertEquals(FailureKind.OTHER, Failures.byJdkType(new SSLHandshakeException("PKIX path building failed")));
        SSLHandshakeException handshakeReset = new SSLHandshakeException("Remote host terminated the handshake");
        handshakeReset.initCause(new SocketException("Connection reset"));
        assertEquals(FailureKind.OTHER, Failures.byJdkType(handshakeReset), "a failed handshake stays failed");
        assertEquals(FailureKind.OTHER, Failures.byJdkType(new SSLException("bad record MAC")));
        assertEquals(FailureKind.OTHER, Failures.byJdkType(new InterruptedIOException("timeout")));
        assertEquals(FailureKind.OTHER, Failures.byJdkType(new InterruptedIOException()));
    }

    @Test
    void anyOtherIoExceptionIsLeftToTheClient() {
        assertNull(Failures.byJdkType(new IOException("unexpected end of stream on http://127.0.0.1:1/...",
                new EOFException())));
        assertNull(Failures.byJdkType(new IOException("Error writing to server")));
        assertNull(Failures.byJdkType(new IOException("Canceled")));
        assertNull(Failures.byJdkType(new ProtocolException("redirected too many times")));
        assertNull(Failures.byJdkType(new FileNotFoundException("http://x/")));
        assertNull(Failures.byJdkType(new IOException(new SocketException("Connection reset"))),
                "only the exception's own type counts, not its cause's");
    }

    @Test
    void aProtocolErrorOnAReusedConnectionBeforeTheHeadIsAStaleConnection() {
        assertEquals(FailureKind.RESET, Failures.staleConnection(FailureKind.OTHER, true, true));
        assertEquals(FailureKind.OTHER, Failures.staleConnection(FailureKind.OTHER, true, false),
                "on a fresh connection it is the server's answer");
        assertEquals(FailureKind.OTHER, Failures.staleConnection(FailureKind.OTHER, false, true),
                "not a protocol error (TLS, unknown host, cancelled): stays");
        assertEquals(FailureKind.TIMEOUT, Failures.staleConnection(FailureKind.TIMEOUT, true, true),
                "a kind the client's type gave is kept");
        assertEquals(FailureKind.CONNECT, Failures.staleConnection(FailureKind.CONNECT, true, true));
    }
}
