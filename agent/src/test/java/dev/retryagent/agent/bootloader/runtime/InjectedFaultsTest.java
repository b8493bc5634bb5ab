package dev.retryagent.agent.bootloader.runtime;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class InjectedFaultsTest {

    @Test
    void offUnlessTheSystemPropertyNamesPlaces() {
        assertNull(InjectedFaults.parse(null));
        assertNull(InjectedFaults.parse(""));
        assertNull(InjectedFaults.parse(" , "));
        // The build never sets the property: the switch is off, and at() throws nowhere.
        assertFalse(InjectedFaults.active());
        assertDoesNotThrow(() -> InjectedFaults.at("okhttp.facts"));
        assertDoesNotThrow(() -> InjectedFaults.atHook("okhttp.client-init"));
    }

    @Test
    void placesAreExactOrPrefixesOrAll() {
        List<String> places = InjectedFaults.parse(" okhttp.facts, hook:apache-httpclient5.* ");
        assertEquals(List.of("okhttp.facts", "hook:apache-httpclient5.*"), places);
        assertTrue(InjectedFaults.matches(places, "okhttp.facts"));
        assertFalse(InjectedFaults.matches(places, "okhttp.facts2"));
        assertFalse(InjectedFaults.matches(places, "okhttp.outcome"));
        assertTrue(InjectedFaults.matches(places, "hook:apache-httpclient5.classic-build"));
        assertFalse(InjectedFaults.matches(places, "hook:okhttp.client-init"));
        List<String> all = InjectedFaults.parse("all");
        assertTrue(InjectedFaults.matches(all, "hook:okhttp.enqueue"));
        assertTrue(InjectedFaults.matches(all, "httpurlconnection.outcome"));
    }
}
