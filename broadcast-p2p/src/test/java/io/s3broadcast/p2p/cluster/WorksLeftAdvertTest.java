package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.p2p.protocol.WorksLeft;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.cluster.WorkList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorksLeftAdvertTest {

    private final ShareFetcherTest.FakeRun run = new ShareFetcherTest.FakeRun();
    private final WorkList works = new WorkList(16, List.of(new PieceRun(0, 4), new PieceRun(4, 8)));
    private final WorksLeftAdvert advert = new WorksLeftAdvert(works, run);

    @Test
    void tellsEveryPeerTheWorksLeftEachTimeTheCountChanged() {
        run.peers.addAll(List.of("b", "c"));
        assertThat(advert.worksLeft()).isEqualTo(2);
        advert.advertise();
        advert.advertise(); // unchanged: not told again
        for (int p = 0; p < 4; p++) {
            works.pieceStored(p);
        }
        advert.advertise();
        works.append(List.of(new PieceRun(8, 9), new PieceRun(9, 10)));
        advert.advertise();
        assertThat(run.sent("b")).containsExactly(new WorksLeft(2), new WorksLeft(1), new WorksLeft(3));
        assertThat(run.sent("c")).isEqualTo(run.sent("b"));
    }

    @Test
    void aPeerThatConnectsLaterHearsOnlyTheNextChange() {
        run.peers.add("b");
        advert.advertise();
        run.peers.add("c"); // it hears the count in the greeting (PeerGreeting), not from here
        advert.advertise();
        assertThat(run.sent("c")).isEmpty();
        for (int p = 0; p < 8; p++) {
            works.pieceStored(p);
        }
        advert.advertise();
        assertThat(run.sent("b")).containsExactly(new WorksLeft(2), new WorksLeft(0));
        assertThat(run.sent("c")).containsExactly(new WorksLeft(0));
    }
}
