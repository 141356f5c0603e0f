package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.p2p.protocol.Have;
import io.s3broadcast.p2p.protocol.MessageType;
import io.s3broadcast.p2p.protocol.Unchoke;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MessageDispatchTest {

    @Test
    void eachMessageGoesToTheHandlerOfItsType() {
        List<String> seen = new ArrayList<>();
        MessageDispatch d = new MessageDispatch()
                .on(MessageType.HAVE, Have.class, (p, h) -> seen.add(p.id + " has " + h.piece()))
                .on(MessageType.UNCHOKE, Unchoke.class, (p, u) -> seen.add(p.id + " unchokes"));
        Peer a = FakeLink.peer("a", 4);
        assertTrue(d.dispatch(a, new Have(2)));
        assertTrue(d.dispatch(a, Unchoke.INSTANCE));
        assertEquals(List.of("a has 2", "a unchokes"), seen);
    }

    @Test
    void aTypeWithoutAHandlerIsNotHandled() {
        MessageDispatch d = new MessageDispatch();
        assertFalse(d.handles(MessageType.HAVE));
        assertFalse(d.dispatch(FakeLink.peer("a", 4), new Have(0)));
    }
}
