"""Recursive-descent parser.

Grammar, loosest binding first:

    expr   := term (("+" | "-") term)*
    term   := unary (("*" | "/" | "%") unary)*
    unary  := ("-" | "+") unary | power
    power  := atom ("**" atom)*
    atom   := NUMBER | NAME | NAME "(" [expr ("," expr)*] ")" | "(" expr ")"
"""

from __future__ import annotations

from exprcalc.errors import ParseError
from exprcalc.nodes import Binary, Call, Name, Node, Num, Unary
from exprcalc.tokens import Token, tokenize


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text)
        self.i = 0

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def accept(self, *ops: str) -> Token | None:
        if self.tok.kind == "op" and self.tok.text in ops:
            self.i += 1
            return self.tokens[self.i - 1]
        return None

    def expect(self, op: str) -> None:
        if not self.accept(op):
            found = self.tok.text or "end of input"
            raise ParseError(f"expected {op!r}, found {found!r}", self.tok.pos)

    def expr(self) -> Node:
        node = self.term()
        while (tok := self.accept("+", "-")) is not None:
            node = Binary(tok.text, node, self.term())
        return node

    def term(self) -> Node:
        node = self.unary()
        while (tok := self.accept("*", "/", "%")) is not None:
            node = Binary(tok.text, node, self.unary())
        return node

    def unary(self) -> Node:
        tok = self.accept("-", "+")
        if tok is not None:
            return Unary(tok.text, self.unary())
        return self.power()

    def power(self) -> Node:
        node = self.atom()
        while self.accept("**"):
            node = Binary("**", node, self.atom())
        return node

    def atom(self) -> Node:
        tok = self.tok
        if tok.kind == "num":
            self.i += 1
            return Num(float(tok.text))
        if tok.kind == "name":
            self.i += 1
            if self.accept("("):
                args = []
                if not self.accept(")"):
                    args.append(self.expr())
                    while self.accept(","):
                        args.append(self.expr())
                    self.expect(")")
                return Call(tok.text, tuple(args))
            return Name(tok.text)
        if self.accept("("):
            node = self.expr()
            self.expect(")")
            return node
        found = tok.text or "end of input"
        raise ParseError(f"unexpected {found!r}", tok.pos)


def parse(text: str) -> Node:
    parser = _Parser(text)
    node = parser.expr()
    if parser.tok.kind != "end":
        raise ParseError(f"unexpected {parser.tok.text!r}", parser.tok.pos)
    return node
