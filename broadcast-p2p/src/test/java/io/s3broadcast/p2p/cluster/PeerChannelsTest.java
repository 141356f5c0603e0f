package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.s3broadcast.p2p.protocol.PeerPipeline;
import io.s3broadcast.spi.PeerLimits;
import io.s3broadcast.spi.PeerSecurity;
import io.s3broadcast.spi.PieceLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The handler a bench injects per node ({@link NettyClusterProvider#withPeerChannelHandler}) goes first. */
class PeerChannelsTest {

    private static final PeerPipeline PIPELINE = PeerChannels.pipeline(new PeerSecurity(null, true, null), null, "g",
            "a", 7000, new PieceLayout(4000, 1000), Duration.ofSeconds(5));

    @Test
    void anInjectedHandlerGoesFirstInEveryChannelItsOwn() {
        List<ChannelHandler> made = new ArrayList<>();
        Supplier<ChannelHandler> link = () -> {
            ChannelHandler h = new ChannelInboundHandlerAdapter();
            made.add(h);
            return h;
        };
        PeerChannels channels = new PeerChannels(null, null, () -> PIPELINE, link);
        EmbeddedChannel one = new EmbeddedChannel();
        EmbeddedChannel two = new EmbeddedChannel();
        channels.adopt(one, new PeerHandler(null, null, PeerLimits.defaults()));
        channels.adopt(two, new PeerHandler(null, null, PeerLimits.defaults()));

        assertThat(made).hasSize(2);
        assertThat(one.pipeline().names().get(0)).isEqualTo(PeerChannels.FIRST_HANDLER);
        assertThat(one.pipeline().first()).isSameAs(made.get(0));
        assertThat(two.pipeline().first()).isSameAs(made.get(1));
        one.finishAndReleaseAll();
        two.finishAndReleaseAll();
    }

    @Test
    void withoutOneThePipelineIsTheProtocolsAlone() {
        PeerChannels channels = new PeerChannels(null, null, () -> PIPELINE, null);
        EmbeddedChannel ch = new EmbeddedChannel();
        channels.adopt(ch, new PeerHandler(null, null, PeerLimits.defaults()));

        assertThat(ch.pipeline().names()).doesNotContain(PeerChannels.FIRST_HANDLER);
        assertThat(ch.pipeline().names().get(0)).isEqualTo(LivenessHandler.NAME);
        ch.finishAndReleaseAll();
    }
}
