package io.s3broadcast.p2p.cluster;

import io.s3broadcast.p2p.protocol.WorksLeft;
import io.s3broadcast.spi.cluster.WorkList;

/**
 * {@code WORKS_LEFT}, this node's side: how many works its list has left, told to every connected peer each time the
 * count changed since it was last told (a peer that connects later hears it in the greeting, {@link PeerGreeting}).
 * Peers steal from the nodes that advertise the most, and phase 1 is over once every peer advertised 0
 * ({@link PhaseGate}). On the run's loop only.
 */
final class WorksLeftAdvert {

    private final WorkList workList;
    private final PhaseOneRun run;
    /** The count last told, -1 before the first. */
    private int advertised = -1;

    WorksLeftAdvert(WorkList workList, PhaseOneRun run) {
        this.workList = workList;
        this.run = run;
    }

    /** Works this node has left, the count it advertises. */
    int worksLeft() {
        return workList.remaining().works();
    }

    /** Tells every peer the works left when the count changed since it was last told. */
    void advertise() {
        int n = worksLeft();
        if (n == advertised) {
            return;
        }
        advertised = n;
        for (String p : run.peers()) {
            run.send(p, new WorksLeft(n));
        }
    }
}
