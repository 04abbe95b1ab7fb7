"""The scanner's handlers of reads: tests, attributes, names, strings, the config's templates."""

from __future__ import annotations

import ast
import re

from prune_flags.find.facts import LITERAL_NAMES, WRITER
from prune_flags.find.scan_state import ScanState
from prune_flags.find.syntax import called_name, plain_literal, root_name, string_values
from prune_flags.syntax.templates import Template, template_read
from prune_flags.syntax.values import UNKNOWN

_FLAG_STRING = re.compile(r"[\w.-]+")  # strings a template may read as a flag's name
_LOAD = ast.Load


class Reads(ScanState):
    """Reads of a name, by attribute, by name, in a test, through a template, and the strings
    that spell one."""

    # -- reads ------------------------------------------------------------------------------
    def test_first(self, node: ast.If | ast.While | ast.IfExp | ast.Assert) -> None:
        self.visit_condition(node.test)
        if isinstance(node, ast.Assert):
            self.visit_all([node.msg])
        elif isinstance(node, ast.IfExp):
            self.visit_all([node.body, node.orelse])
        else:
            self.visit_all([*node.body, *node.orelse])

    def bool_op(self, node: ast.BoolOp) -> None:
        # Inside a test, or inside an and/or counted already, the count around has it.
        if not self.tests and id(node) not in self.counted:
            self.count_deciding_reads(node)
        for value in node.values:
            self.visit(value)

    def read_attribute(self, node: ast.Attribute) -> None:
        if self.naming and id(node) in self.naming:
            # `config.use_x` of `config.use_x.value`, read through a template: `config` is read.
            self.visit(node.value)
            return
        if self.accessors:
            self.acted_on(node.value)
        name = node.attr
        self.mentions.add(name)
        if node.ctx.__class__ is not ast.Load:
            self.bind_target(node, UNKNOWN, node.lineno)
            return
        reads = self.attribute_reads
        reads[name] = reads.get(name, 0) + 1
        owner = node.value
        if owner.__class__ is ast.Name and owner.id in ("self", "cls"):
            if self.current_class is not None:
                self.self_reads.add((self.current_class, name))
        # os.sep, torch.cuda.x: an attribute of something outside the repository shares the name.
        elif root_name(owner) in self.external:
            self.disqualified.add(name)
        self.visit(owner)

    def attribute(self, node: ast.Attribute) -> None:
        if self.accessors:
            self.template_use(node)
        if not (self.naming and id(node) in self.naming):
            self.value_refs.add(node.attr)
        self.read_attribute(node)

    def read_name(self, node: ast.Name) -> None:
        if self.naming and id(node) in self.naming:
            return  # `{name}()` read through a template
        name = node.id
        self.mentions.add(name)
        if node.ctx.__class__ is not _LOAD:
            self.bind_name(name, UNKNOWN, node.lineno)
            return
        reads = self.name_reads
        reads[name] = reads.get(name, 0) + 1
        if name in self.parameter_names:
            reads = self.parameter_reads
            reads[name] = reads.get(name, 0) + 1

    def string(self, value: str) -> None:
        # A string that spells a name may reach it through setattr, **{...}, an options table
        # ("spec-only" in distutils' user_options) or getattr: the name is out.
        bare = value.strip("-=")
        name = bare.replace("-", "_")
        if name.isidentifier():
            self.mentions.add(name)
            self.disqualified.add(name)
            self.spelled.add(name)
        if not bare.isidentifier() and _FLAG_STRING.fullmatch(bare):
            self.disqualified.add(bare)  # "dark-mode": a flag's name where a template reads it so

    def expression_statement(self, node: ast.Expr) -> None:
        if node.value.__class__ is not ast.Constant:  # a docstring names nothing
            self.statement_call = node.value
            self.visit(node.value)

    def compare(self, node: ast.Compare) -> None:
        if self.accessors:
            self.template_use(node)
        self.visit_all([node.left, *node.comparators])

    # -- the config's templates -------------------------------------------------------------
    def template_read(self, node: ast.expr) -> tuple[str, ast.expr, Template] | None:
        """index.template_read with the names find takes, once a node: the condition, the node
        itself and what acts on it all ask."""
        templates = self.accessors_by_kind.get(node.__class__)
        if templates is None:
            return None  # only a template of the node's kind can match it
        key = id(node)
        if key not in self.template_matches:
            self.template_matches[key] = template_read(templates, node, LITERAL_NAMES)
        return self.template_matches[key]

    def template_name(self, node: ast.expr) -> str | None:
        """The flag a read through an accessor template names with a literal, or None."""
        read = self.template_read(node)
        return read[0] if read is not None else None

    def acted_on(self, receiver: ast.expr) -> None:
        """A template read that something acts on (`config.mode.value.upper()`, called,
        subscripted) cannot become the constant: that flag is out."""
        name = self.template_name(receiver)
        if name is not None:
            self.disqualified.add(name)

    def template_use(self, node: ast.expr) -> None:
        """`node` read through an accessor template is a read of the flag it names, and what
        names the flag in it is neither a plain read nor a string of it (the rest of it is
        visited as usual)."""
        read = self.template_read(node)
        if read is None:
            return
        name, carrier, _ = read
        self.naming.add(id(carrier))
        self.mentions.add(name)
        self.template_reads[name] = self.template_reads.get(name, 0) + 1
        if isinstance(carrier, ast.Constant):
            self.named_template_reads.add(name)
        elif isinstance(carrier, ast.Name):
            self.bare_template_reads.add(name)

    def template_store(self, target: ast.Attribute | ast.Subscript) -> None:
        """`options["x"] = v`, `config.x.value = v`, `del options["x"]`: another value, whatever
        it is (the cleanup keeps a store of the same one, which reads after it could see)."""
        name = self.template_name(target)
        if name is not None:
            self.disqualified.add(name)

    def writer_call(self, node: ast.Call) -> None:
        """A call of one of the config's writers: as a statement with a literal value
        (`flags.DEFINE_boolean("use_w", False, "...")`, `set_config("x", True)`) it defines the
        flag at that value; any other (another value, a decorator, a `with`, a call whose result
        is used) gives it a value find cannot tell. The string naming the flag is no write."""
        for shape in self.writers:
            written = shape.written_value(node, LITERAL_NAMES)
            if written is None:
                continue
            name, argument, value = written
            if argument is not None:
                self.naming.add(id(argument))
            self.mentions.add(name)
            literal_value = plain_literal(value)
            if literal_value is UNKNOWN or node is not self.statement_call:
                self.disqualified.add(name)
            else:
                self.define(name, WRITER, literal_value, node.lineno)
            return

    def subscript(self, node: ast.Subscript) -> None:
        if self.accessors:
            self.template_use(node)
            self.acted_on(node.value)
        if called_name(node.value) == "environ":
            self.environment.update(string_values([node.slice]))
        self.visit_all([node.value, node.slice])
