"""The test suite, a package: each test module is imported by its dotted name from the
repository's root (tests.cli.test_cli), so that worker processes can import it too, and the
shared helpers are tests.support (benchmarks/fuzz.py imports the fuzzer's generator from there).
"""
