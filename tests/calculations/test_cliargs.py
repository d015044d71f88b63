"""calc.py's shared argument types: what each accepts, what it refuses and what it says."""
import argparse

import pytest

from calculations import cliargs


@pytest.mark.parametrize("conv, good, bad, message", [
    (cliargs.positive, {"3": 3, "1_000": 1000, "2,048": 2048, "1e6": 1000000,
                        "123456789012345678901": 123456789012345678901}, ["0", "-1", "2.5", "x", "inf"],
     "expected a positive integer"),
    (cliargs.nonneg, {"0": 0, "7": 7}, ["-1", "0.5", ""], "expected a non-negative integer"),
    (cliargs.positive_number, {"0.5": 0.5, "1e3": 1000.0}, ["0", "-2", "nan", "inf", "x"],
     "expected a positive number"),
    (cliargs.nonneg_number, {"0": 0.0, "2.5": 2.5}, ["-0.1", "nan", "inf"], "expected a non-negative number"),
    (cliargs.fraction, {"1": 1.0, "0.25": 0.25}, ["0", "1.01", "-1"], "expected a fraction in (0, 1]"),
    (cliargs.probability, {"0": 0.0, "1": 1.0}, ["1.5", "-0.1"], "expected a fraction in [0, 1]"),
    (cliargs.size, {"0": 0.0, "1,000,000": 1e6}, ["-1", "big"], "expected a non-negative size in bytes"),
])
def test_argument_types(conv, good, bad, message):
    for text, value in good.items():
        assert conv(text) == value and type(conv(text)) is type(value)
    for text in bad:
        with pytest.raises(argparse.ArgumentTypeError) as err:
            conv(text)
        assert str(err.value) == f"{message}, got {text!r}"
