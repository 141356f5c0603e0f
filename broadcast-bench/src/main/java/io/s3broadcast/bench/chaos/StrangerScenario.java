package io.s3broadcast.bench.chaos;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * A peer in no registry and without the secret, which knows what anyone can learn from a HEAD (bucket, key,
 * ETag, size): it dials every node again and again during the broadcast, alternately claiming insecure mode and
 * sending a random proof, then asks for every piece.
 */
final class StrangerScenario implements ChaosScenario {

    @Override
    public String name() {
        return "stranger";
    }

    @Override
    public String description() {
        return "a peer without the secret dials every node during the broadcast and asks for every piece";
    }

    @Override
    public ChaosResult run(ChaosContext c) throws Exception {
        return attack(c, name(), null);
    }

    /** Starts the honest fleet, attacks it with adversaries holding {@code key} (null: none) and reports. */
    static ChaosResult attack(ChaosContext c, String scenario, byte[] key) throws Exception {
        long start = System.nanoTime();
        String group = AttackLoop.group(c);
        int[] n = {0};
        try (NodeFleet fleet = c.fleet(scenario, c.nodes())) {
            fleet.env("S3BROADCAST_SECRET", randomSecret()).startAll();
            AttackLoop loop = AttackLoop.run(fleet, c.nodeTimeout(), () -> new Adversary(group, c.size(), 256 * 1024, key,
                    key == null && n[0]++ % 2 == 0, null));
            StringBuilder notes = new StringBuilder();
            boolean exact = fleet.awaitByteExact(notes);
            long logged = 0;
            for (int i = 0; i < c.nodes(); i++) {
                logged += fleet.logLines(i, "group secret");
            }
            notes.append("connections ended: ").append(loop.endings).append("; ").append(logged)
                    .append(" warning lines about the secret in the nodes' logs (once per host and node)");
            return ChaosResult.of(scenario, c.nodes(), c.size(), loop.attempts, loop.objectBytes, loop.bitfields,
                    loop.metadata, 0, exact, fleet.honestConnectionsRefused(), (System.nanoTime() - start) / 1e9,
                    notes.toString());
        }
    }

    static String randomSecret() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
