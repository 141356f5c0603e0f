package io.s3broadcast.bench.chaos;

import java.security.SecureRandom;

/**
 * A peer that speaks the protocol correctly but holds a wrong secret: its proofs have the right form and are
 * computed as docs/protocol.md says, with another key.
 */
final class WrongSecretScenario implements ChaosScenario {

    @Override
    public String name() {
        return "wrong-secret";
    }

    @Override
    public String description() {
        return "a peer with a wrong secret proves itself correctly in form and asks for every piece";
    }

    @Override
    public ChaosResult run(ChaosContext c) throws Exception {
        byte[] wrong = new byte[32];
        new SecureRandom().nextBytes(wrong);
        return StrangerScenario.attack(c, name(), wrong);
    }
}
