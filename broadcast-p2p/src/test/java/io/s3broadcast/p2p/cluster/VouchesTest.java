package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

class VouchesTest {

    private static byte[] d(int b) {
        byte[] x = new byte[32];
        x[0] = (byte) b;
        return x;
    }

    @Test
    void aPieceIsExpectedOnlyWhenVouchedForAndUndisputed() {
        Vouches v = new Vouches(4);
        assertThat(v.expected(0)).isNull();
        assertThat(v.vouch("b", 0, d(1))).isEqualTo(Vouches.Vouch.AGREES);
        assertThat(v.vouch("c", 0, d(1))).isEqualTo(Vouches.Vouch.AGREES);
        assertThat(v.expected(0)).isEqualTo(d(1));
        assertThat(v.vouch("liar", 0, d(2))).isEqualTo(Vouches.Vouch.CONTRADICTS_PEER);
        assertThat(v.expected(0)).isNull();
        assertThat(v.contested(0)).isTrue();
    }

    @Test
    void theOwnS3ReadDecidesAndNamesThoseWhoVouchedOtherwise() {
        Vouches v = new Vouches(4);
        v.vouch("b", 1, d(1));
        v.vouch("liar", 1, d(2));
        assertThat(v.own(1, d(1))).containsExactly("liar");
        assertThat(v.expected(1)).isEqualTo(d(1));
        assertThat(v.contested(1)).isFalse();
        assertThat(v.vouch("other", 1, d(3))).isEqualTo(Vouches.Vouch.CONTRADICTS_OWN);
    }

    @Test
    void droppingALiarLeavesPiecesOnlyItVouchedForUnvouched() {
        Vouches v = new Vouches(4);
        v.vouch("liar", 2, d(9));
        v.vouch("liar", 3, d(9));
        v.vouch("b", 3, d(9));
        BitSet dropped = v.drop("liar");
        assertThat(dropped.stream().toArray()).containsExactly(2, 3);
        assertThat(v.expected(2)).isNull();
        assertThat(v.expected(3)).isEqualTo(d(9));
        assertThat(v.vouchers(3)).containsExactly("b");
    }

    @Test
    void theVouchersOfAPieceAreInTheOrderTheyFirstVouched() {
        Vouches v = new Vouches(4);
        v.vouch("z", 1, d(1));
        v.vouch("b", 1, d(1));
        v.vouch("z", 1, d(1));
        v.vouch("a", 1, d(1));
        assertThat(v.vouchers(1)).containsExactly("z", "b", "a");
        assertThat(Repairs.firstVoucher(v.vouchers(1))).isEqualTo("z");
    }

    @Test
    void aStrangersWordAloneMakesNoPieceAcceptableButStillDisputesAMembers() {
        Vouches v = new Vouches(4);
        v.vouch("stranger", 0, d(6));
        assertThat(v.expected(0, "member"::equals)).isNull();
        assertThat(v.vouch("member", 0, d(1))).isEqualTo(Vouches.Vouch.CONTRADICTS_PEER);
        assertThat(v.expected(0, "member"::equals)).isEqualTo(d(1));
        assertThat(v.contested(0)).isTrue();
    }
}
