"""asv benchmarks whose results speeduptest's asv reader is tested on (the initial version;
optimized.py differs only in unique_words)."""


def unique_words(words):
    """The distinct words in order of first appearance: a list scan."""
    seen = []
    for word in words:
        if word not in seen:
            seen.append(word)
    return seen


WORDS = [f"w{(i * 7919) % 499}" for i in range(1000)]


def time_unique_words():
    unique_words(WORDS)


def time_join():
    " ".join(WORDS)


class TimeSort:
    params = [[100, 10000], ["list", "tuple"]]  # noqa: RUF012 (asv reads these)
    param_names = ["size", "kind"]  # noqa: RUF012

    def setup(self, size, kind):
        data = [(i * 7919) % size for i in range(size)]
        self.data = data if kind == "list" else tuple(data)

    def time_sorted(self, size, kind):
        sorted(self.data)


def track_unique_count():
    return len(unique_words(WORDS))
