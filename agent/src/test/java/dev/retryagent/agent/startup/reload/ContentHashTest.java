package dev.retryagent.agent.startup.reload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ContentHashTest {
    @Test
    void knownVectors() {
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", ContentHash.sha256Hex(new byte[0]));
        assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                ContentHash.sha256Hex("abc".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", ContentHash.sha256Hex(
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("ba7816bf8f01", ContentHash.shortHex("abc".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void equalsTheJdksSha256AtEveryLengthAroundTheBlockBoundariesAndAtTheFileLimit() throws Exception {
        Random random = new Random(42);
        MessageDigest jdk = MessageDigest.getInstance("SHA-256");
        for (int length = 0; length <= 300; length++) {
            byte[] content = new byte[length];
            random.nextBytes(content);
            assertEquals(HexFormat.of().formatHex(jdk.digest(content)), ContentHash.sha256Hex(content), "length " + length);
        }
        byte[] large = new byte[64 * 1024];
        random.nextBytes(large);
        assertEquals(HexFormat.of().formatHex(jdk.digest(large)), ContentHash.sha256Hex(large));
    }
}
