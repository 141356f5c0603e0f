package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.p2p.protocol.Goodbye;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BanListTest {

    final List<String> told = new ArrayList<>();
    final BanList bans = new BanList(3, () -> "me", (peer, reason, why) -> told.add(peer + " " + reason));

    @Test
    void aPeerIsBannedAndToldOnceAtTheStrikeLimit() {
        assertThat(bans.strike("b", 0)).isEqualTo(1);
        assertThat(bans.strike("b", 1)).isEqualTo(2);
        assertThat(bans.contains("b")).isFalse();
        assertThat(bans.strike("b", 2)).isEqualTo(3);
        assertThat(bans.contains("b")).isTrue();
        bans.strike("b", 3);
        assertThat(told).containsExactly("b " + Goodbye.Reason.PROTOCOL_ERROR);
        assertThat(bans.isLiar("b")).isFalse();
        assertThat(bans.liars()).isEmpty();
    }

    @Test
    void aPeerThatMisbehavesIsBannedAndToldWhyOnItsOwnConnection() {
        Peer p = FakeLink.peer("b", 4);
        bans.misbehaved(p, "sent a second BITFIELD");
        assertThat(bans.contains("b")).isTrue();
        assertThat(FakeLink.of(p).goodbye).isEqualTo(new Goodbye(Goodbye.Reason.MISBEHAVIOUR, "sent a second BITFIELD"));
        assertThat(told).as("the sentence is for bans this list decides").isEmpty();
        assertThat(bans.isLiar("b")).isFalse();
    }

    @Test
    void strikesOfOnePeerDoNotCountAgainstAnother() {
        bans.strike("b", 0);
        bans.strike("b", 1);
        bans.strike("c", 2);
        assertThat(bans.contains("b")).isFalse();
        assertThat(bans.contains("c")).isFalse();
        assertThat(told).isEmpty();
    }

    @Test
    void aLiarIsConvictedAndToldOnceAndReportedInOrder() {
        assertThat(bans.convict("z", "lied")).isTrue();
        assertThat(bans.convict("a", "lied")).isTrue();
        assertThat(bans.convict("z", "lied again")).isFalse();
        assertThat(bans.contains("z")).isTrue();
        assertThat(bans.liars()).containsExactly("a", "z");
        assertThat(told).containsExactly("z " + Goodbye.Reason.BAD_PIECE, "a " + Goodbye.Reason.BAD_PIECE);
    }

    @Test
    void aPeerBannedForItsConductCanStillBeConvictedOfALie() {
        assertThat(bans.add("b")).isTrue();
        assertThat(bans.isLiar("b")).isFalse();
        assertThat(bans.convict("b", "lied")).isTrue();
        assertThat(bans.isLiar("b")).isTrue();
        assertThat(told).containsExactly("b " + Goodbye.Reason.BAD_PIECE);
    }

    @Test
    void aPeerBannedAtTheStrikeLimitIsNotToldTwiceWhenBannedOtherwiseFirst() {
        bans.add("b");
        bans.strike("b", 0);
        bans.strike("b", 1);
        bans.strike("b", 2);
        assertThat(told).isEmpty();
    }
}
