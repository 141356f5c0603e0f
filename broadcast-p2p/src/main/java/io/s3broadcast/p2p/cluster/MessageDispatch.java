package io.s3broadcast.p2p.cluster;

import io.s3broadcast.p2p.protocol.MessageType;
import io.s3broadcast.p2p.protocol.PeerMessage;
import java.util.EnumMap;
import java.util.Map;

/**
 * Routes each message from a peer to the handler registered for its {@link MessageType}: one table instead of
 * a chain of type tests. The run registers a handler per type it takes from the run's loop; a message of a
 * type without one is not handled (the caller releases it).
 */
final class MessageDispatch {

    /** Handles one message of type {@code M} from {@code from}, on the run's loop; it owns the message. */
    @FunctionalInterface
    interface Handler<M extends PeerMessage> {
        void handle(Peer from, M message);
    }

    private final Map<MessageType, Handler<PeerMessage>> handlers = new EnumMap<>(MessageType.class);

    /** Messages of {@code type} (whose class is {@code kind}) go to {@code handler} from now on. */
    <M extends PeerMessage> MessageDispatch on(MessageType type, Class<M> kind, Handler<? super M> handler) {
        handlers.put(type, (from, message) -> handler.handle(from, kind.cast(message)));
        return this;
    }

    /** Whether a handler takes messages of {@code type}. */
    boolean handles(MessageType type) {
        return handlers.containsKey(type);
    }

    /** Gives {@code message} to its type's handler; false, and nothing done, when no handler takes its type. */
    boolean dispatch(Peer from, PeerMessage message) {
        Handler<PeerMessage> h = handlers.get(message.type());
        if (h == null) {
            return false;
        }
        h.handle(from, message);
        return true;
    }
}
