package dev.retryagent.agent.startup.reload;

import dev.retryagent.agent.startup.AgentStartup;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.PolicyError;
import dev.retryagent.policy.PolicyException;
import dev.retryagent.policy.PolicyLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

/**
 * Loads the policy file at start-up and again whenever its content changes (docs/reference.md#hot-reload), by polling:
 * a directory watch misses a Kubernetes ConfigMap update, where {@code policy.yaml} is a link into {@code ..data},
 * itself a link to a timestamped directory that is swapped as a whole.
 *
 * <p>Each {@link #poll()} takes a cheap stamp of the file (the path it resolves to, its identity, size, modification
 * time and whether it can be read); only when the stamp changed is the file read (bounded, by {@link
 * PolicyLoader#read}) and hashed, and only a content change loads a policy. A file whose modification time was too
 * recent when it was read is read again at the next poll, since a second write within the file system's timestamp
 * granularity leaves the stamp as it was. A file that cannot be read, or whose content is invalid, keeps the running
 * policy and is reported once per distinct problem, not at every poll.
 *
 * <p>Not thread-safe: start-up calls {@link #start()}, then only the housekeeping thread calls {@link #poll()}.
 */
public final class PolicyWatcher implements Runnable {
    public static final String POLICY_FILE_PROPERTY = "retry-agent.policy.file";
    public static final String POLICY_HASH_PROPERTY = "retry-agent.policy.hash";
    /** How often the file is looked at. */
    public static final long PERIOD_MILLIS = 1000;
    /**
     * A file modified less than this before it was read may have been modified again within the same timestamp tick
     * (coarse on some file systems): it is read again at the next poll.
     */
    static final long RACY_MILLIS = 2000;
    /**
     * The most errors of an invalid file logged at start-up, one line each: a hostile 64 KiB file can hold thousands,
     * and the count and the first lines are what an operator needs to fix it.
     */
    static final int MAX_LOGGED_ERRORS = 20;

    /** What the watcher asks of the file system; tests give a fake. */
    interface FileAccess {
        /** A stamp that changes whenever the file (or what its links resolve to) may have changed. */
        Stamp stamp(Path file) throws IOException;

        /** The file's content, bounded and never blocking (the loader's read). */
        byte[] read(Path file) throws PolicyException;
    }

    /** Where a loaded policy goes: the runtime's engine. */
    interface Target {
        void install(Policy policy);
    }

    /** The current time, as file modification times are given. */
    interface WallClock {
        long currentTimeMillis();
    }

    /** A file's stamp: equal stamps mean the file was not touched. */
    static final class Stamp {
        final String resolved;
        final Object identity;
        final long size;
        final long modifiedNanos;
        /** Whatever of its permissions can make it readable or not, or null. */
        final String permissions;

        Stamp(String resolved, Object identity, long size, long modifiedNanos, String permissions) {
            this.resolved = resolved;
            this.identity = identity;
            this.size = size;
            this.modifiedNanos = modifiedNanos;
            this.permissions = permissions;
        }

        long modifiedMillis() {
            return TimeUnit.NANOSECONDS.toMillis(modifiedNanos);
        }

        @Override
        public boolean equals(Object other) {
            if (!(other instanceof Stamp)) {
                return false;
            }
            Stamp that = (Stamp) other;
            return size == that.size && modifiedNanos == that.modifiedNanos && resolved.equals(that.resolved)
                    && same(identity, that.identity) && same(permissions, that.permissions);
        }

        @Override
        public int hashCode() {
            return resolved.hashCode() * 31 + (int) (size ^ modifiedNanos);
        }

        private static boolean same(Object a, Object b) {
            return a == null ? b == null : a.equals(b);
        }

        @Override
        public String toString() {
            return resolved + " id=" + identity + " size=" + size + " mtime=" + modifiedNanos + " perm=" + permissions;
        }
    }

    static final FileAccess REAL_FILES = new FileAccess() {
        @Override
        public Stamp stamp(Path file) throws IOException {
            Path real = file.toRealPath();
            BasicFileAttributes attributes = Files.readAttributes(real, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            // Whether it can be read, rather than its permissions and owner: looking the owner's name up is slow,
            // and only a change of readability matters here.
            return new Stamp(real.toString(), attributes.fileKey(), attributes.size(),
                    attributes.lastModifiedTime().to(TimeUnit.NANOSECONDS), Files.isReadable(real) ? "r" : "-");
        }

        @Override
        public byte[] read(Path file) throws PolicyException {
            return PolicyLoader.read(file);
        }
    };

    static final WallClock SYSTEM_CLOCK = new WallClock() {
        @Override
        public long currentTimeMillis() {
            return System.currentTimeMillis();
        }
    };

    private final Path file;
    private final Mode modeOverride;
    private final FileAccess files;
    private final WallClock clock;
    private final Target target;

    /** The stamp the file had when it was last read; null: read it at the next poll. */
    private Stamp readStamp;
    /** The content hash of the running policy, null while none came from the file. */
    private String loadedHash;
    /** The problem last reported, so that it is reported once; null after a good read. */
    private String reported;

    PolicyWatcher(Path file, Mode modeOverride, FileAccess files, WallClock clock, Target target) {
        this.file = file;
        this.modeOverride = modeOverride;
        this.files = files;
        this.clock = clock;
        this.target = target;
    }

    /**
     * The watcher of the policy file {@code file}: its start-up load, then its reloads (docs/reference.md#hot-reload).
     * A file that cannot be used leaves the application running without retries (docs/reference.md#fail-open): every
     * error is logged with its file, line and key, and the agent runs in mode {@code off} until the file is fixed. The
     * operator's {@code mode} argument, if any, overrides the file's mode at every load. Kept out of {@link
     * AgentStartup}: verifying a class that makes a {@link Target} loads {@code Target}, and a start on the built-in
     * policy loads none of the watcher's classes.
     */
    public static PolicyWatcher of(String file, Mode modeOverride) {
        Path path;
        try {
            path = Paths.get(file);
        } catch (InvalidPathException e) {
            RetryLog.agent(Level.SEVERE, "policy-invalid file=" + file
                    + " error=not a valid path; the application runs without retries (mode off)");
            return null;
        }
        return new PolicyWatcher(path, modeOverride, REAL_FILES, SYSTEM_CLOCK, new Target() {
            @Override
            public void install(Policy policy) {
                RetryRuntime.setPolicy(policy);
            }
        });
    }

    /** The content hash of the running policy, or null while the file has given none. */
    String loadedHash() {
        return loadedHash;
    }

    /**
     * The start-up load: the file's policy, or, when the file cannot be used, the built-in policy in mode off, with
     * every error logged (docs/reference.md#fail-open). Either way the file is watched from now on, so that a file that
     * is fixed, or that appears, is picked up by a later {@link #poll()}. Does not install the policy; the caller does.
     */
    public Policy start() {
        // No stamp yet: the first poll reads the file again (and takes it), off the application's start-up.
        readStamp = null;
        byte[] content;
        try {
            content = files.read(file);
        } catch (PolicyException e) {
            reported = "read " + e.getMessage();
            return invalidAtStartUp(e.errors());
        }
        String hash = ContentHash.shortHex(content);
        try {
            Policy policy = parse(content);
            loadedHash = hash;
            logLoaded(policy, hash);
            return policy;
        } catch (PolicyException e) {
            reported = "content " + hash;
            return invalidAtStartUp(e.errors());
        }
    }

    private Policy invalidAtStartUp(List<PolicyError> errors) {
        int logged = Math.min(errors.size(), MAX_LOGGED_ERRORS);
        for (int i = 0; i < logged; i++) {
            RetryLog.agent(Level.SEVERE, "policy-error " + errors.get(i));
        }
        if (errors.size() > logged) {
            RetryLog.agent(Level.SEVERE, "policy-error " + file + ": " + (errors.size() - logged)
                    + " more errors not shown; `check` lists them all");
        }
        RetryLog.agent(Level.SEVERE, "policy-invalid file=" + file + " errors=" + errors.size()
                + "; the application runs without retries (mode off)");
        return Policy.builtIn().withModeOverride(Mode.OFF);
    }

    @Override
    public void run() {
        poll();
    }

    /** One look at the file: loads and installs its policy when its content changed and is valid. */
    void poll() {
        Stamp stamp = stampOrNull();
        if (stamp != null && stamp.equals(readStamp)) {
            return;
        }
        long readAt = clock.currentTimeMillis();
        byte[] content;
        try {
            content = files.read(file);
        } catch (PolicyException e) {
            // Looked at again at every poll until it can be read: a fixed permission need not change the stamp.
            readStamp = null;
            report("read " + e.getMessage(), null, e.errors());
            return;
        }
        String hash = ContentHash.shortHex(content);
        remember(stamp, readAt);
        if (hash.equals(loadedHash)) {
            reported = null; // back to what runs (a touch, a restore, a swap to equal content): nothing to load
            return;
        }
        String problem = "content " + hash;
        if (problem.equals(reported)) {
            return;
        }
        Policy policy;
        try {
            policy = parse(content);
        } catch (PolicyException e) {
            report(problem, hash, e.errors());
            return;
        }
        target.install(policy);
        loadedHash = hash;
        reported = null;
        // Logged once in force, so that a call made after the line is seen runs under it.
        logLoaded(policy, hash);
    }

    private Stamp stampOrNull() {
        try {
            return files.stamp(file);
        } catch (IOException e) {
            return null; // missing, a broken link: the read says what is wrong
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Keeps the stamp the content was read under, unless it was too fresh to be trusted. */
    private void remember(Stamp stamp, long readAt) {
        if (stamp != null && readAt - stamp.modifiedMillis() >= RACY_MILLIS) {
            readStamp = stamp;
        } else {
            readStamp = null;
        }
    }

    /** The policy of {@code content}, with the operator's mode, if any; throws for an invalid one. */
    private Policy parse(byte[] content) throws PolicyException {
        Policy policy = PolicyLoader.parseContent(content, file.toString());
        return modeOverride == null ? policy : policy.withModeOverride(modeOverride);
    }

    private void logLoaded(Policy policy, String hash) {
        AgentStartup.publishPolicy(file.toString(), hash);
        RetryLog.agent(Level.INFO, "policy-loaded file=" + file + " hash=" + hash
                + " rules=" + policy.rules().size()
                + " mode=" + policy.mode().configName()
                + " builtInRetries=" + policy.builtInRetries().configName());
    }

    /** One line per distinct problem: the first error with its file:line: key, and what keeps running. */
    private void report(String problem, String hash, List<PolicyError> errors) {
        if (problem.equals(reported)) {
            return;
        }
        reported = problem;
        StringBuilder line = new StringBuilder("policy-rejected file=").append(file);
        if (hash != null) {
            line.append(" hash=").append(hash);
        }
        line.append(" errors=").append(errors.size());
        if (!errors.isEmpty()) {
            line.append(" first=").append(errors.get(0));
        }
        line.append("; keeping the running policy ")
                .append(loadedHash != null ? "hash=" + loadedHash : "(mode off, none loaded from the file)");
        RetryLog.agent(Level.WARNING, line.toString());
    }
}
