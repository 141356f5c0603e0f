package io.s3broadcast.bench.chaos;

import io.s3broadcast.registry.GroupId;
import java.io.IOException;
import java.time.Duration;
import java.util.function.Supplier;

/** Attacks every node of a fleet, one connection after another, for as long as any node runs (within a limit). */
final class AttackLoop {

    int attempts;
    long objectBytes;
    int bitfields;
    int metadata;
    /** How the adversary's connections ended, with counts. */
    final java.util.Map<String, Integer> endings = new java.util.TreeMap<>();

    private AttackLoop() {
    }

    /** The group hash a stranger derives from a HEAD of the object (no group name). */
    static String group(ChaosContext c) {
        return GroupId.of(c.bucket(), c.key(), c.eTag(), null).hash();
    }

    /**
     * Runs {@code adversaries} against {@code fleet}'s nodes until every node process has ended or {@code limit}
     * (the nodes' timeout) has passed since the call, so a node that never exits cannot hang the attack.
     */
    static AttackLoop run(NodeFleet fleet, Duration limit, Supplier<Adversary> adversaries)
            throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        AttackLoop loop = new AttackLoop();
        for (int i = 0; i < fleet.ports().size(); i++) {
            try {
                fleet.awaitListening(i);
            } catch (IllegalStateException e) {
                break; // it ended already (or failed): nothing left to attack there
            }
        }
        while (fleet.anyAlive() && System.nanoTime() - deadline < 0) {
            for (int port : fleet.ports()) {
                try {
                    Adversary.Attempt a = adversaries.get().attack(port, Duration.ofMillis(500));
                    loop.attempts++;
                    loop.objectBytes += a.objectBytes();
                    loop.bitfields += a.bitfields();
                    loop.metadata += a.metadata();
                    loop.endings.merge(a.refusal() == null ? "closed" : a.refusal(), 1, Integer::sum);
                } catch (IOException e) {
                    // the node is gone or refused the connection
                }
            }
        }
        return loop;
    }
}
