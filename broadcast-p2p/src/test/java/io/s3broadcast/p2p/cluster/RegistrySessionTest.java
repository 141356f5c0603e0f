package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.registry.AbstractNodeRegistry;
import io.s3broadcast.registry.GroupId;
import io.s3broadcast.registry.Membership;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Joining the group's registry on fake time: the run starts as soon as a poll sees the group complete. */
class RegistrySessionTest {

    /** A registry that learns of other nodes only when it polls, like the S3 one. */
    private static final class PollingRegistry extends AbstractNodeRegistry {
        final List<NodeInfo> registeredElsewhere = new ArrayList<>();
        final List<Long> polls = new ArrayList<>();
        private final ManualScheduler time;

        PollingRegistry(ManualScheduler time) {
            super(GroupId.of("bucket", "key", "etag"));
            this.time = time;
        }

        @Override
        protected void doStart() {
        }

        @Override
        protected NodeInfo doRegister(NodeInfo node) {
            memberJoined(node);
            return node;
        }

        @Override
        protected void doLeave(NodeInfo node) {
        }

        @Override
        protected void doClose() {
        }

        /** What the last poll saw: a member other than this node whose broadcast has begun. */
        void othersBegun(boolean begun) {
            reportOthersBegun(begun);
        }

        @Override
        public void pollNow() {
            polls.add(Duration.ofNanos(time.nanoTime()).toMillis());
            registeredElsewhere.forEach(this::memberJoined);
        }
    }

    private static NodeInfo node(String id) {
        return new NodeInfo(id, "127.0.0.1", 7000);
    }

    private final ManualScheduler time = new ManualScheduler();
    private final PollingRegistry registry = new PollingRegistry(time);
    private final RegistrySession session = new RegistrySession(time);

    @Test
    void theWaitEndsAtTheFirstPollAfterTheOthersRegisteredNotAtTheRegistrysOwnInterval() {
        assertTrue(session.start(registry));
        RegistrySession.Registered me = session.register(node("a"), 3);
        assertFalse(me.late());
        CompletableFuture<Membership> members = session.awaitMembers(3, Duration.ofSeconds(30));
        time.advance(Duration.ofMillis(250));
        assertFalse(members.isDone());
        registry.registeredElsewhere.add(node("b"));
        registry.registeredElsewhere.add(node("c"));
        time.advance(Duration.ofMillis(50));
        assertTrue(members.isDone());
        assertEquals(3, members.join().members().size());
        assertEquals(List.of(100L, 300L), registry.polls);
        assertTrue(time.scheduled().isEmpty(), "no poll after the group is complete");
    }

    @Test
    void pollsWhileWaitingBackOffToTwoSeconds() {
        session.start(registry);
        session.register(node("a"), 2);
        CompletableFuture<Membership> members = session.awaitMembers(2, Duration.ofSeconds(8));
        time.advance(Duration.ofSeconds(8));
        assertEquals(List.of(100L, 300L, 700L, 1500L, 3100L, 5100L, 7100L), registry.polls);
        assertTrue(members.join().timedOut());
        time.advance(Duration.ofSeconds(10));
        assertEquals(7, registry.polls.size(), "none after the wait ended");
    }

    @Test
    void aNodeThatFindsTheGroupCompleteIsLate() {
        registry.registeredElsewhere.addAll(List.of(node("b"), node("c")));
        session.start(registry);
        registry.pollNow();
        RegistrySession.Registered me = session.register(node("a"), 2);
        assertTrue(me.late());
        assertEquals(2, me.membersBefore());
    }

    @Test
    void aNodeThatFindsFewerThanExpectedIsLateWhenTheirBroadcastHasBegun() {
        // Three were expected and began; one has left since: two are listed, and their entries say they began.
        registry.registeredElsewhere.addAll(List.of(node("b"), node("c")));
        session.start(registry);
        registry.pollNow();
        registry.othersBegun(true);
        RegistrySession.Registered me = session.register(node("a"), 3);
        assertTrue(me.late());
        assertEquals(2, me.membersBefore());
    }

    @Test
    void aNodeThatFindsFewerThanExpectedWhoHaveNotBegunIsOneOfThem() {
        registry.registeredElsewhere.addAll(List.of(node("b"), node("c")));
        session.start(registry);
        registry.pollNow();
        assertFalse(session.register(node("a"), 3).late());
    }

    @Test
    void aClosedSessionClosesTheRegistryItIsGivenAndPollsNoMore() {
        session.close();
        assertFalse(session.start(registry));
        session.refresh();
        assertTrue(registry.polls.isEmpty());
    }

    @Test
    void leavingClosesTheRegistryOnTheBlockingThreadsOrHereWhenTheyRefuse() {
        session.start(registry);
        List<Runnable> blocking = new ArrayList<>();
        CompletableFuture<Void> left = session.leave(blocking::add, "a", "group");
        assertFalse(left.isDone());
        blocking.forEach(Runnable::run);
        assertTrue(left.isDone());
        assertTrue(session.isClosed());

        RegistrySession other = new RegistrySession(time);
        CompletableFuture<Void> here = other.leave(r -> {
            throw new java.util.concurrent.RejectedExecutionException("shut down");
        }, "a", "group");
        assertTrue(here.isDone());
        assertTrue(other.isClosed());
    }
}
