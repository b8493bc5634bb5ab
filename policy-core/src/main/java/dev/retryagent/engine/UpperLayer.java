package dev.retryagent.engine;

import java.util.Locale;

/**
 * Which retry loop of another layer, above the client in the same JVM (an SDK's or a library's own retries,
 * docs/reference.md#layers-above-the-client), this thread is running, so that a call made inside it is recognised and
 * the outcomes that layer retries ({@link LayerRetries}) are left to it. The loops are hooked at their entry and every
 * exit; each pushes what it is here and pops it when it returns or throws.
 *
 * <p>Also reads the evidence a layer writes on the request itself, for loops not hooked on this thread: the AWS SDKs
 * stamp {@code amz-sdk-request: attempt=N; max=M} on every attempt (v1 also {@code amz-sdk-retry}, which names it).
 *
 * <p>Per thread, as {@link AttemptScope}: a loop's attempts run on the thread that runs the loop. A call handed to
 * another thread is not seen inside the loop.
 */
public final class UpperLayer {
    /**
     * What a hooked loop answers when its own retries are switched off (an SDK configured with no retries): it is no
     * layer, and it says so, so that the request's own evidence (an attempt header with {@code max} above 1 from a
     * stale default) does not count either.
     */
    public static final String RETRIES_OFF = "(retries-off)";
    /** The AWS SDKs' attempt header, {@code attempt=N; max=M}, on every attempt: v2's, and v1's (1.12.797 checked). */
    public static final String AWS_SDK_REQUEST_HEADER = "amz-sdk-request";
    /** The AWS SDK v1's retry header, {@code retries/lastBackoff/capacity}, beside the attempt header. */
    public static final String AWS_SDK_V1_HEADER = "amz-sdk-retry";
    public static final String AWS_SDK_V2 = "aws-sdk-v2";
    public static final String AWS_SDK_V1 = "aws-sdk-v1";

    /** Deeper nesting than this is counted but not recorded: the outer loops decide. */
    private static final int MAX_DEPTH = 16;

    private static final ThreadLocal<Loops> CURRENT = new ThreadLocal<Loops>() {
        @Override
        protected Loops initialValue() {
            return new Loops();
        }
    };

    /** The loops running on one thread, innermost last. */
    private static final class Loops {
        final LayerRetries[] loops = new LayerRetries[MAX_DEPTH];
        int depth;
        /** How many of the recorded loops are layers (neither null nor {@link LayerRetries#RETRIES_OFF}). */
        int layers;
    }

    /** What the AWS SDKs' attempt header says: the layer, and nothing of what it retries. */
    private static final LayerRetries AWS_SDK_V2_BY_HEADER = LayerRetries.unknown(AWS_SDK_V2);
    private static final LayerRetries AWS_SDK_V1_BY_HEADER = LayerRetries.unknown(AWS_SDK_V1);

    private UpperLayer() {
    }

    /**
     * Marks this thread as running a retry loop until {@link #exit}: {@code loop} is the layer and what it retries when
     * the loop retries, {@link LayerRetries#RETRIES_OFF} when its retries are off, null when nothing is known (the loop
     * is not a layer). A layer entered inside another is recorded with it: an outcome either may retry is left to
     * them ({@link LayerRetries#within}).
     */
    public static void enter(LayerRetries loop) {
        Loops loops = CURRENT.get();
        int d = loops.depth;
        if (d < MAX_DEPTH) {
            if (isLayer(loop)) {
                loops.loops[d] = loops.layers > 0 ? loop.within(innermostLayer(loops, d)) : loop;
                loops.layers++;
            } else {
                loops.loops[d] = loop;
            }
        }
        loops.depth = d + 1;
    }

    /**
     * {@link #enter(LayerRetries)} for a layer named {@code name} of which nothing is known but that it retries;
     * {@link #RETRIES_OFF} and null as there.
     */
    public static void enter(String name) {
        enter(name == null ? null : RETRIES_OFF.equals(name) ? LayerRetries.RETRIES_OFF : LayerRetries.unknown(name));
    }

    /** Ends the loop the last {@link #enter} on this thread began. */
    public static void exit() {
        Loops loops = CURRENT.get();
        if (loops.depth == 0) {
            return; // entered before the agent was attached: nothing recorded
        }
        int d = --loops.depth;
        if (d < MAX_DEPTH) {
            if (isLayer(loops.loops[d])) {
                loops.layers--;
            }
            loops.loops[d] = null;
        }
    }

    private static boolean isLayer(LayerRetries loop) {
        return loop != null && !loop.isRetriesOff();
    }

    /**
     * The name of the layer whose loop this thread runs (the innermost that retries), {@link #RETRIES_OFF} when every
     * loop it runs has its retries off, or null when it runs none.
     */
    public static String current() {
        LayerRetries loop = currentLoop();
        return loop == null ? null : loop.layer();
    }

    /** {@link #current()}'s layer with what it retries; {@link LayerRetries#RETRIES_OFF} or null as there. */
    static LayerRetries currentLoop() {
        Loops loops = CURRENT.get();
        int d = loops.depth;
        if (d == 0) {
            return null;
        }
        if (loops.layers == 0) {
            return LayerRetries.RETRIES_OFF;
        }
        LayerRetries layer = innermostLayer(loops, d);
        return layer != null ? layer : LayerRetries.RETRIES_OFF;
    }

    /** The innermost layer recorded below depth {@code depth}, or null. */
    private static LayerRetries innermostLayer(Loops loops, int depth) {
        for (int i = Math.min(depth, MAX_DEPTH) - 1; i >= 0; i--) {
            if (isLayer(loops.loops[i])) {
                return loops.loops[i];
            }
        }
        return null;
    }

    /**
     * The layer above the client a call of this thread with {@code headers} is made in, with what it retries: the
     * hooked loop this thread runs, else the layer named by the request's own attempt header (nothing known of what
     * it retries); null when none, or when the loops this thread runs have their retries off.
     */
    static LayerRetries of(HeaderLookup headers) {
        LayerRetries loop = currentLoop();
        if (loop != null) {
            return loop.isRetriesOff() ? null : loop;
        }
        // One header looked up per call: both SDKs write it on every attempt, and its max says whether they retry.
        // v1's own header only names the layer then.
        String attempts = headers.value(AWS_SDK_REQUEST_HEADER);
        if (attempts == null || awsMaxAttempts(attempts) <= 1) {
            return null;
        }
        return headers.value(AWS_SDK_V1_HEADER) != null ? AWS_SDK_V1_BY_HEADER : AWS_SDK_V2_BY_HEADER;
    }

    /**
     * The {@code max} of an {@code amz-sdk-request} value ({@code attempt=1; max=3}); 0 when it has none. A value
     * without {@code max} (older SDKs wrote only the attempt) says nothing about the retries to come.
     */
    static int awsMaxAttempts(String value) {
        int i = value.toLowerCase(Locale.ROOT).indexOf("max=");
        if (i < 0) {
            return 0;
        }
        int n = 0;
        for (int j = i + 4; j < value.length(); j++) {
            char c = value.charAt(j);
            if (c < '0' || c > '9') {
                break;
            }
            n = n > 100_000 ? n : n * 10 + (c - '0');
        }
        return n;
    }
}
