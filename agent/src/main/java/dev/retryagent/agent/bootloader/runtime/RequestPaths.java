package dev.retryagent.agent.bootloader.runtime;

/**
 * The path a request's facts carry, as every client that reads it from a request target shares it: without query or
 * fragment (docs/reference.md#what-it-reports: logs never carry a query). Only JDK types: it lives on the bootstrap
 * path, where the adapters of every class loader find it.
 */
public final class RequestPaths {
    private RequestPaths() {
    }

    /** {@code path} up to its query or fragment; {@code /} when that leaves nothing, or when there is no path. */
    public static String withoutQuery(String path) {
        if (path == null || path.isEmpty()) {
            return "/";
        }
        int end = path.length();
        int query = path.indexOf('?');
        if (query >= 0) {
            end = query;
        }
        int fragment = path.indexOf('#');
        if (fragment >= 0 && fragment < end) {
            end = fragment;
        }
        return end == 0 ? "/" : path.substring(0, end);
    }
}
