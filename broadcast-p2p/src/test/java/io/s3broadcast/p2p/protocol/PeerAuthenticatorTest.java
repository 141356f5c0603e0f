package io.s3broadcast.p2p.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class PeerAuthenticatorTest {

    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    @Test
    void digestsMacIsTheDocumentedHmacOfAFreshlyKeyedMac() throws Exception {
        byte[] digests = new byte[3 * Digests.DIGEST_BYTES];
        for (int i = 0; i < digests.length; i++) {
            digests[i] = (byte) i;
        }
        PeerAuthenticator auth = PeerAuthenticator.withSecret(SECRET);

        assertThat(auth.digestsMac("g", "node-1", 7, digests)).isEqualTo(reference("g", "node-1", 7, digests));
        // The same object again (a clone of the keyed prototype each time, never its state carried over).
        assertThat(auth.digestsMac("g", "node-1", 7, digests)).isEqualTo(reference("g", "node-1", 7, digests));
        assertThat(auth.digestsMac("g", "node-2", 7, digests)).isNotEqualTo(reference("g", "node-1", 7, digests));
    }

    @Test
    void macsComputedOnManyThreadsAtOnceAreAllRight() throws Exception {
        PeerAuthenticator auth = PeerAuthenticator.withSecret(SECRET);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    for (int i = 0; i < 500; i++) {
                        byte[] d = new byte[Digests.DIGEST_BYTES];
                        d[0] = (byte) i;
                        d[1] = (byte) thread;
                        if (!Arrays.equals(auth.digestsMac("g", "n" + thread, i, d), reference("g", "n" + thread, i, d))) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            for (Future<Boolean> r : results) {
                assertThat(r.get(30, TimeUnit.SECONDS)).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** The MAC as the class comment defines it, from a Mac keyed here. */
    private static byte[] reference(String group, String nodeId, int first, byte[] digests) throws Exception {
        byte[] g = group.getBytes(StandardCharsets.UTF_8);
        byte[] id = nodeId.getBytes(StandardCharsets.UTF_8);
        byte[] label = "s3broadcast-digests-v2".getBytes(StandardCharsets.US_ASCII);
        ByteBuffer in = ByteBuffer.allocate(label.length + 2 + g.length + id.length + 8 + digests.length);
        in.put(label).put((byte) g.length).put(g).put((byte) id.length).put(id)
                .putInt(first).putInt(digests.length / Digests.DIGEST_BYTES).put(digests);
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET, "HmacSHA256"));
        return mac.doFinal(in.array());
    }
}
