from wraptext.width import chop, display_width


def test_display_width():
    assert display_width("abc") == 3
    assert display_width("日本") == 4
    assert display_width("e\u0301") == 1


def test_chop():
    assert chop("abcdefg", 3) == ["abc", "def", "g"]
    assert chop("日本語", 5) == ["日本", "語"]
