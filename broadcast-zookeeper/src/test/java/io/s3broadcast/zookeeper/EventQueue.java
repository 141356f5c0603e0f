package io.s3broadcast.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.registry.MembershipListener;
import io.s3broadcast.registry.NodeInfo;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Membership events as {@code +id} / {@code -id}, taken in order with a deadline. */
final class EventQueue implements MembershipListener {

    private static final long WAIT_SECONDS = 20;

    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();

    @Override
    public void joined(NodeInfo node) {
        events.add("+" + node.nodeId());
    }

    @Override
    public void left(NodeInfo node) {
        events.add("-" + node.nodeId());
    }

    /** Waits for the next event and checks it. */
    void expect(String event) throws InterruptedException {
        String next = events.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(next).as("next membership event").isEqualTo(event);
    }

    /** Checks that nothing else has arrived. */
    void expectNothingYet() {
        assertThat(events).isEmpty();
    }
}
