package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThatCode;

import org.junit.jupiter.api.Test;

/** The first request's one-time costs are paid without a request, as often as sources are made. */
class FirstRequestCostsTest {

    @Test
    void payingIsHarmlessAndMayBeRepeated() {
        assertThatCode(FirstRequestCosts::pay).doesNotThrowAnyException();
        assertThatCode(FirstRequestCosts::pay).doesNotThrowAnyException();
    }
}
