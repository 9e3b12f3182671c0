(function(onlyRole) {
  // The accessibility tree Chrome would build, for pages made only of features whose mapping is
  // known exactly; anything else answers ['unsupported', reason] and the snapshot reads Chrome's
  // own tree. Runs in the snapshot's isolated world of the document it walks (the page can
  // neither see it nor redefine what it calls).
  //
  // Answer (as JSON text): ['ok', nodes, tagged] where each node is [parent, role, name, ignored,
  // key, prop] in preorder (children in order). key is the node's number in this world (-1 when
  // the node has none, or is ignored): the world keeps every numbered node (a WeakRef, so a node
  // the page dropped can still be collected) and gives it the same number on every walk, so a
  // ref keyed on it survives from one snapshot to the next, and an action resolves it to a
  // backendNodeId only when it needs one (`nodes[key]`). prop: level (heading, listitem),
  // checked (checkbox, radio), href (link), selected (option), value (combobox). tagged:
  // [scan index, key] of each element the cursor scan tagged (it runs just before, in the
  // page's world).
  //
  // It walks the flat tree, as Chrome does: a custom element with an open shadow root shows the
  // root's children instead of its own, a slot its assigned nodes (or its fallback children when
  // nothing is assigned).
  //
  // With onlyRole (`find role`), the answer is ['role', [[name, key], …]]: the numbered nodes of
  // that role (ASCII case-insensitive), in getFullAXTree's order — the whole walk, without
  // sending the whole tree.
  const doc = document;
  const view = doc.defaultView || window;
  const WS = /^[ \t\n\r\f]*$/;
  class Unsupported { constructor(reason) { this.reason = reason; } }
  const no = (reason) => { throw new Unsupported(reason); };
  const state = globalThis.__abxWalk || (globalThis.__abxWalk = {keys: new WeakMap(), nodes: []});
  const keyOf = (node) => {
    let key = state.keys.get(node);
    if (key === undefined) {
      key = state.nodes.length;
      state.nodes.push(new WeakRef(node));
      state.keys.set(node, key);
    }
    return key;
  };

  // A first pass over the whole document, shadow trees included, that refuses what the walk
  // would not see the same way, and collects the shadow roots and the labels. Only custom
  // elements (a name with '-') may host a shadow root, an open one: one without may hold a
  // closed root (invisible to any script) or be upgraded later, so it is refused, and so is a
  // built-in host.
  const roots = [];
  const labelElements = [];
  // light: the node is the body or inside it, where every attribute must be one ATTRS allows.
  const screen = (node, shadow, light) => {
    if (node.nodeType === 1) {
      const tag = node.localName;
      // An iframe is a leaf here (its document is read on its own); other embeddings are not.
      if (tag === 'frame' || tag === 'object' || tag === 'embed') no('frame');
      if (tag === 'template') return;
      if (tag === 'label') labelElements.push(node);
      if (node.hasAttributes()) {
        if (shadow) shadowAttributes(node);
        else if (light) lightAttributes(node);
      }
      if (tag.indexOf('-') > 0) {
        const root = node.shadowRoot;
        if (!root) no('custom element without an open shadow root');
        roots.push(root);
        screen(root, true, light);
      } else if (node.shadowRoot) no('shadow root on ' + tag);
      else if (tag === 'slot' && !shadow) no('slot outside a shadow root');
    }
    for (let c = node.firstChild; c; c = c.nextSibling) if (c.nodeType === 1) screen(c, shadow, light || c === doc.body);
  };

  // Stylesheets may only paint: every declaration must be of a property that cannot change
  // Chrome's tree (so every element keeps the user-agent display, visibility, white-space…
  // of its tag and no style needs computing), except list-style, read per list item. Rules
  // we cannot read, at-rules and pseudo-element selectors are out.
  const PAINT = /^(color|background(-.*)?|margin(-.*)?|padding(-.*)?|border(-.*)?|font(-.*)?|line-height|text-align|text-decoration(-.*)?|letter-spacing|word-spacing|width|height|min-width|min-height|max-width|max-height|box-sizing|box-shadow|outline(-.*)?|opacity|cursor|vertical-align|gap|row-gap|column-gap|list-style(-type|-position|-image)?|accent-color|caret-color|text-indent|transition(-.*)?)$/;
  let listStyles = false;
  // display:flex (and the flex item properties) only on elements whose children are all blocks:
  // their items are blocks already, so the tree is the one of the user-agent display.
  const FLEX = /^(flex(-.*)?|align-(items|self|content)|justify-(content|items|self)|order)$/;
  const flexRules = [];
  // A shadow root's sheets (its style elements' and adopted ones) pass the same screen, with one
  // rule more: `:host{display:block}` makes its host a block (a custom element is inline
  // otherwise). No other display there.
  const blockHosts = new Set();
  // Returns whether a shadow root's sheet makes its host a block.
  const screenSheet = (sheet, shadow) => {
    let block = false;
    let rules;
    try { rules = sheet.cssRules; } catch (e) { no('unreadable stylesheet'); }
    for (const rule of rules) {
      if (!(rule instanceof view.CSSStyleRule) || rule.cssRules.length) no('stylesheet at-rule');
      if (/::?(before|after|marker|first-letter|first-line|placeholder|backdrop|selection)/i.test(rule.selectorText)) no('pseudo-element rule');
      const style = rule.style;
      for (let i = 0; i < style.length; i++) {
        const property = style[i];
        if (shadow && property === 'display') {
          if (rule.selectorText !== ':host' || style.getPropertyValue('display') !== 'block') no('shadow stylesheet display');
          block = true;
          continue;
        }
        if (!shadow && property === 'display' && style.getPropertyValue('display') === 'flex') { flexRules.push(rule.selectorText); continue; }
        if (FLEX.test(property)) continue;
        if (!PAINT.test(property)) no('stylesheet property ' + property);
        if (property.startsWith('list-style')) listStyles = true;
      }
    }
    return block;
  };
  const sheets = () => {
    for (const sheet of doc.styleSheets) screenSheet(sheet, false);
    // An adopted sheet is often shared by every instance of a component: screened once.
    const screened = new Map();
    const host = (sheet, root) => {
      let block = screened.get(sheet);
      if (block === undefined) { block = screenSheet(sheet, true); screened.set(sheet, block); }
      if (block) blockHosts.add(root.host);
    };
    for (const root of roots) {
      for (const sheet of root.styleSheets) host(sheet, root);
      for (const sheet of root.adoptedStyleSheets) host(sheet, root);
    }
    for (const selector of flexRules) {
      for (const el of doc.querySelectorAll(selector)) {
        if (!FLEX_CONTAINERS[el.localName]) no('flex ' + el.localName);
        for (let c = el.firstChild; c; c = c.nextSibling) {
          if (c.nodeType === 3 ? !WS.test(c.data) : c.nodeType === 1 && !SKIP[c.localName] && BLOCK[c.localName] !== 'block') no('flex item ' + (c.localName || 'text'));
        }
      }
    }
  };
  const FLEX_CONTAINERS = {div: 1, main: 1, section: 1, article: 1, aside: 1, nav: 1};

  const BLOCK = {div: 'block', p: 'block', h1: 'block', h2: 'block', h3: 'block', h4: 'block', h5: 'block',
    h6: 'block', ul: 'block', ol: 'block', nav: 'block', main: 'block', header: 'block', footer: 'block',
    article: 'block', section: 'block', form: 'block', body: 'block', aside: 'block', fieldset: 'block', legend: 'block', li: 'list-item', table: 'table', caption: 'table-caption',
    thead: 'table-header-group', tbody: 'table-row-group', tr: 'table-row', th: 'table-cell', td: 'table-cell'};
  const INLINE = {span: 'inline', a: 'inline', em: 'inline', strong: 'inline', label: 'inline', br: 'inline'};
  const ATOMIC = {button: 'inline-block', input: 'inline-block', img: 'inline', select: 'inline-block', iframe: 'inline'};
  const SKIP = {script: 1, style: 1, noscript: 1, template: 1};
  const ATTRS = {
    '*': {class: 1, id: 1},
    a: {href: 1, target: 1, rel: 1, download: 1, hreflang: 1, referrerpolicy: 1}, button: {type: 1, 'aria-label': 1, title: 1, name: 1, value: 1}, aside: {'aria-label': 1}, span: {role: 1, 'aria-label': 1},
    input: {type: 1, id: 1, name: 1, placeholder: 1, 'aria-label': 1, value: 1, checked: 1, autocomplete: 1}, option: {selected: 1},
    nav: {'aria-label': 1}, main: {'aria-label': 1}, article: {'aria-label': 1}, section: {'aria-label': 1},
    div: {role: 1, 'aria-label': 1}, label: {for: 1},
    img: {alt: 1, src: 1, width: 1, height: 1, loading: 1, decoding: 1}, script: {src: 1, type: 1}, style: {},
    form: {action: 1, method: 1, name: 1, autocomplete: 1, novalidate: 1, enctype: 1, target: 1, onsubmit: 1, 'accept-charset': 1},
    iframe: {src: 1, title: 1, name: 1, width: 1, height: 1, loading: 1, allow: 1, allowfullscreen: 1, frameborder: 1, referrerpolicy: 1},
    table: {role: 1, 'aria-label': 1}, th: {scope: 1}, slot: {name: 1}
  };
  const HEADINGS = {h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6};
  const MARKERS = {disc: '\u2022 ', circle: '\u25e6 ', square: '\u25a0 '};

  const styleOf = (el) => view.getComputedStyle(el);
  // ATTRS as sets (a plain object would also answer for `constructor` and the like).
  const ALLOWED = new Map(Object.keys(ATTRS).map((tag) => [tag, new Set(Object.keys(ATTRS[tag]))]));
  const ANY = ALLOWED.get('*');
  const allowed = (tag, name) => ANY.has(name) || (ALLOWED.has(tag) && ALLOWED.get(tag).has(name)) || name.startsWith('data-');
  // `slot` is allowed on a custom element's children.
  const slotted = (el, name) => name === 'slot' && el.parentNode.nodeType === 1 && el.parentNode.localName.indexOf('-') > 0;
  // An element of the body (met by `screen`, in document order): no attribute outside ATTRS.
  const lightAttributes = (el) => {
    const tag = el.localName;
    for (const name of el.getAttributeNames()) {
      if (name === 'style') { inlineStyle(el); continue; }
      if (!allowed(tag, name) && !slotted(el, name)) no('attribute ' + name + ' on ' + tag);
    }
  };
  // A `style` attribute passes the stylesheets' screen: declarations that only paint.
  const inlineStyle = (el) => {
    const style = el.style;
    for (let i = 0; i < style.length; i++) {
      const property = style[i];
      if (!PAINT.test(property)) no('style property ' + property);
      if (property.startsWith('list-style')) listStyles = true;
    }
  };
  // The same screen for an element of a shadow tree, without `id`: a shadow tree's ids are not
  // the document's, and Chrome does not treat them as the document's (a `span id` there is no
  // generic).
  const shadowAttributes = (el) => {
    const tag = el.localName;
    for (const name of el.getAttributeNames()) {
      if (name !== 'id' && (allowed(tag, name) || slotted(el, name))) continue;
      no('attribute ' + name + ' on ' + tag + ' in a shadow tree');
    }
  };
  const check = (el) => {
    const tag = el.localName;
    if (el.namespaceURI !== 'http://www.w3.org/1999/xhtml') no('foreign element');
    if (SKIP[tag]) return null;
    const expected = BLOCK[tag] || INLINE[tag] || ATOMIC[tag] || tag === 'slot' || tag.indexOf('-') > 0;
    if (!expected) no('element ' + tag);
    return true;
  };

  // The flat tree. `screen` proved that every element whose name has a '-' hosts an open shadow
  // root and that every slot is in a shadow tree.
  const isHost = (el) => el.localName.indexOf('-') > 0;
  // The flat children of a slot or a host (of an element named `tag`), null for any other
  // element: the hot loops then walk `firstChild`/`nextSibling`, cheaper than a NodeList.
  const flatKids = (el, tag) => {
    if (tag === 'slot') {
      const assigned = el.assignedNodes();
      return assigned.length ? assigned : el.childNodes;
    }
    return tag.indexOf('-') > 0 ? el.shadowRoot.childNodes : null;
  };
  const kids = (node) => (node.nodeType === 1 && flatKids(node, node.localName)) || node.childNodes;
  const flatParent = (node) => {
    const parent = node.assignedSlot || node.parentNode;
    return parent && parent.nodeType === 11 ? parent.host : parent;
  };

  const nodes = [];
  // dom: the DOM node behind an AX node (none for list markers and a textbox's inner generic).
  // Ignored nodes keep no DOM node in the snapshot's tree, so they are not numbered.
  const emit = (parent, role, name, ignored, dom, prop) => {
    nodes.push([parent, role, name, ignored ? 1 : 0, dom && !ignored ? keyOf(dom) : -1, prop === undefined ? null : prop]);
    return nodes.length - 1;
  };
  // A name Chrome takes as it is: words separated by single spaces.
  const plain = (text) => text !== null && /^[^ \t\n\r\f]+( [^ \t\n\r\f]+)*$/.test(text);

  // Rendered text of each text node of one block container, CSS white-space collapsing:
  // runs of spaces become one, a space after a space or at a line start goes, and the last
  // space before the end of the block goes. A lone space next to a button, input or image is
  // not in Chrome's tree. Returns a Map text node -> rendered text.
  const rendered = new Map();
  // Space-only text nodes left as a space, for `dropSpaces`.
  const spaces = [];
  const layoutBlock = (container) => {
    const items = []; // {text node, s} or {atomic}
    const flush = () => {
      let space = true;
      for (const item of items) {
        if (item.atomic) { space = false; continue; }
        let s = item.s;
        if (space && s.startsWith(' ')) s = s.slice(1);
        if (s.length) space = s.endsWith(' ');
        item.s = s;
      }
      for (let i = items.length - 1; i >= 0; i--) {
        const item = items[i];
        if (item.atomic) break;
        if (item.s.endsWith(' ')) item.s = item.s.slice(0, -1);
        if (item.s.length) break;
      }
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        if (item.atomic) continue;
        if (item.s === ' ' && ((items[i - 1] && items[i - 1].atomic) || (items[i + 1] && items[i + 1].atomic))) item.s = '';
        if (item.s === ' ' && WS.test(item.node.data)) spaces.push(item.node);
        rendered.set(item.node, item.s);
      }
      items.length = 0;
    };
    const item = (c) => {
      if (c.nodeType === 3) { items.push({node: c, s: c.data.replace(/[ \t\n\r\f]+/g, ' ')}); return; }
      if (c.nodeType !== 1) return;
      const tag = c.localName;
      if (SKIP[tag]) return;
      if (tag === 'br') { flush(); return; }
      // A slot is display:contents; a custom element inline unless its `:host` is a block.
      if (INLINE[tag] || tag === 'slot' || (isHost(c) && !blockHosts.has(c))) { inline(c); return; }
      if (ATOMIC[tag]) { items.push({atomic: true}); if (tag === 'button') layoutBlock(c); return; }
      flush();
      layoutBlock(c);
    };
    const inline = (node) => {
      const k = node.nodeType === 1 && flatKids(node, node.localName);
      if (!k) for (let c = node.firstChild; c; c = c.nextSibling) item(c);
      else for (let i = 0; i < k.length; i++) item(k[i]);
    };
    inline(container);
    flush();
  };

  // Chrome keeps a space-only text node only when it has a node on each side in the DOM (not
  // the flat tree: the first node of a shadow root has none) and neither side "can do without
  // the space": no box (a slot, a comment, a script, text not rendered), space at that edge, a
  // block or control, or an inline whose edge content (or, empty, its own neighbour) is one of
  // those, three levels deep at most. (The run above already drops a space beside a control.)
  const beside = (node, way) => {
    for (let n = node; n; n = n.parentNode) if (n[way]) return n[way];
    return null;
  };
  const edgeChild = (node, after) => {
    const k = kids(node);
    for (let i = after ? 0 : k.length - 1; after ? i < k.length : i >= 0; i += after ? 1 : -1) {
      const c = k[i];
      if (c.nodeType === 3) return c;
      if (c.nodeType !== 1 || SKIP[c.localName]) continue;
      if (c.localName === 'slot') { const inner = edgeChild(c, after); if (inner) return inner; continue; }
      return c;
    }
    return null;
  };
  const spaceless = (node, after, depth) => {
    if (!node) return true;
    if (depth > 3) return false;
    if (node.nodeType === 3) {
      const s = rendered.get(node);
      return !s || WS.test(node.data) || (after ? s.startsWith(' ') : s.endsWith(' '));
    }
    if (node.nodeType !== 1) return true;
    const tag = node.localName;
    const parent = node.parentNode;
    if (tag === 'slot' || SKIP[tag] || tag === 'br' || (parent.nodeType === 1 && isHost(parent) && !node.assignedSlot)) return true;
    if (tag === 'img' || tag === 'iframe') return false;
    if (!(INLINE[tag] || (isHost(node) && !blockHosts.has(node)))) return true;
    const child = edgeChild(node, after);
    if (!child) return spaceless(beside(node, after ? 'nextSibling' : 'previousSibling'), after, depth + 1);
    return spaceless(child, after, depth + 1);
  };
  const dropSpaces = () => {
    for (const node of spaces) {
      const prev = beside(node, 'previousSibling');
      const next = beside(node, 'nextSibling');
      if (!prev || !next || spaceless(prev, false, 0) || spaceless(next, true, 0)) rendered.set(node, '');
    }
  };

  // Calls fn(child, kept) on each flat-tree child of n; kept: n is a slot or a custom element.
  const each = (n, fn) => {
    const k = n.nodeType === 1 && flatKids(n, n.localName);
    if (!k) for (let c = n.firstChild; c; c = c.nextSibling) fn(c, false);
    else for (let i = 0; i < k.length; i++) fn(k[i], true);
  };
  const textOf = (node) => {
    // The rendered text under node (name from contents), collapsed and trimmed. Chrome joins the
    // texts of a node's children in its tree as they are, but sets a slot (in the tree inside a
    // name, and with no box) apart from its siblings by a space; nodes not in the tree (a span,
    // a custom element) leave their children in their place.
    let out = '';
    const run = (n) => {
      let any = false;
      let apart = false;
      const piece = (slot) => {
        if (any && (apart || slot)) out += ' ';
        any = true;
        apart = slot;
      };
      const step = (c, kept) => {
        if (c.nodeType === 3) { const s = rendered.get(c); if (s) { piece(false); out += s; } return; }
        if (c.nodeType !== 1 || SKIP[c.localName]) return;
        const tag = c.localName;
        if (ATOMIC[tag] || tag === 'label' || tag === 'br') no('control inside a name');
        if (c.hasAttribute('role') || c.hasAttribute('aria-label')) no('role inside a name');
        if ((BLOCK[tag] && tag !== 'div' && tag !== 'p') || blockHosts.has(c)) no('block inside a name');
        if (tag === 'slot') { if (kids(c).length) { piece(true); run(c); } return; }
        if (!kept && ((tag === 'span' && !c.id) || isHost(c))) { each(c, step); return; }
        piece(false);
        run(c);
      };
      each(n, step);
    };
    run(node);
    return out.replace(/[ \t\n\r\f]+/g, ' ').trim();
  };

  const labels = new Map(); // control -> label
  // A typed text field (no type, or one of these as typed: an unknown type falls back to text
  // and is not one).
  const TEXT_TYPES = new Set(['text', 'password', 'email', 'tel', 'url']);
  const textField = (input) => {
    const type = input.getAttribute('type');
    return type === null ? input.type === 'text' : TEXT_TYPES.has(type) && input.type === type;
  };
  // Labels around their control that hold a slot: Chrome keeps those as LabelText, the slot and
  // the text in it as nodes of their own (a label around a control and plain text is ignored).
  const slotLabels = new Set();
  const findLabels = () => labelElements.forEach((label) => {
    const target = label.getAttribute('for');
    if (target === null) {
      const inner = label.querySelectorAll('*');
      const control = inner[0];
      // A label around one text input and text: LabelText (the generic label case), its text
      // and the textbox, named by the text (an empty input adds nothing to it).
      if (inner.length === 1 && control.localName === 'input' && textField(control) && !control.hasAttribute('aria-label')) {
        for (let c = label.firstChild; c; c = c.nextSibling) if (c.nodeType !== 3 && c !== control) no('label content');
        if (labels.has(control)) no('label');
        labels.set(control, label);
        return;
      }
      // A label around one checkbox or radio and text (or slots of text): the control's name is
      // the text.
      if (!inner.length || control.localName !== 'input' || (control.type !== 'checkbox' && control.type !== 'radio') || control.hasAttribute('aria-label')) no('label content');
      for (let i = 1; i < inner.length; i++) {
        const slot = inner[i];
        if (slot.localName !== 'slot' || slot.parentNode !== label) no('label content');
        const k = kids(slot);
        if (!k.length) no('empty slot in a label');
        for (let j = 0; j < k.length; j++) if (k[j].nodeType !== 3) no('label content');
        slotLabels.add(label);
      }
      labels.set(control, label);
      return;
    }
    // A label for an id in its own tree (the document or a shadow root).
    const control = label.getRootNode().getElementById(target);
    if (!control || (control.localName !== 'input' && control.localName !== 'select') || labels.has(control)) no('label');
    labels.set(control, label);
  });
  const labelled = (label) => {
    const control = label.getAttribute('for') !== null ? label.getRootNode().getElementById(label.getAttribute('for')) : label.querySelector('input');
    return control && (control.type === 'checkbox' || control.type === 'radio');
  };
  // A label's text around its control: its text nodes and slots of text (set apart as in
  // `textOf`), collapsed and trimmed; the control adds nothing.
  const labelText = (label) => {
    let out = '';
    let any = false;
    let apart = false;
    for (let c = label.firstChild; c; c = c.nextSibling) {
      let text = '';
      const slot = c.nodeType === 1 && c.localName === 'slot';
      if (c.nodeType === 3) {
        text = rendered.get(c);
        if (!text) continue;
      } else if (slot) {
        const k = kids(c);
        for (let i = 0; i < k.length; i++) text += rendered.get(k[i]) || '';
      } else if (c.nodeType !== 1) continue;
      if (any && (apart || slot)) out += ' ';
      out += text;
      any = true;
      apart = slot;
    }
    return out.replace(/[ \t\n\r\f]+/g, ' ').trim();
  };

  // What a block's children are, in the flat tree (a slot counts by what it shows, a custom
  // element is inline unless its `:host` is a block): bit 1 inline content, 2 blocks, 4 an
  // element that shows nothing (script, style). Chrome includes a div of inline content only as
  // generic, one of blocks only as an ignored node; a block custom element alike.
  const kindOf = (c) => {
    if (c.nodeType === 3) return WS.test(c.data) ? 0 : 1;
    if (c.nodeType !== 1) return 0;
    const tag = c.localName;
    if (SKIP[tag]) return 4;
    if (tag === 'slot') return contentOf(c) & 3;
    if (INLINE[tag] || (isHost(c) && !blockHosts.has(c))) return 1;
    if (BLOCK[tag] || blockHosts.has(c)) return 2;
    // An iframe is inline content of its div (the div is a generic, as with text).
    if (tag === 'iframe') return 1;
    if (ATOMIC[tag]) no('control in a div');
    return 3;
  };
  const contentOf = (el) => {
    let kind = 0;
    const k = flatKids(el, el.localName);
    if (!k) for (let c = el.firstChild; c; c = c.nextSibling) kind |= kindOf(c);
    else for (let i = 0; i < k.length; i++) kind |= kindOf(k[i]);
    return kind;
  };
  const inlineOnly = (kind) => (kind & 3) === 1;
  const blockOnly = (kind) => (kind & 1) === 0 && (kind & 6) !== 0;

  let listDepth = 0;
  let inTable = null;
  // ARIA lists (`div role=list`) open, for their items' level.
  let ariaLists = 0;
  // Headings, links and buttons open (named from their contents): Chrome keeps a slot inside
  // one in its tree.
  let named = 0;
  // Fieldsets and labels for a control open, where a slot is not proved.
  let noSlot = 0;
  const children = (el, parent) => {
    const k = flatKids(el, el.localName);
    if (!k) for (let c = el.firstChild; c; c = c.nextSibling) visit(c, parent, el, false);
    else for (let i = 0; i < k.length; i++) visit(k[i], parent, el, true);
  };
  // up: the node's parent in the flat tree; kept: whether up is a slot or a custom element,
  // whose children Chrome keeps in its tree even when they are ignored (a shadow root's are
  // its host's).
  const visit = (node, parent, up, kept) => {
    if (node.nodeType === 3) {
      const s = rendered.get(node);
      if (s === undefined) { if (WS.test(node.data)) return; no('text outside a block'); }
      if (s.length) emit(parent, 'StaticText', s, false, node);
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node;
    const tag = el.localName;
    if (check(el) === null) return;
    const dom = el;
    switch (tag) {
      case 'span': case 'label':
        if (tag === 'label' && slotLabels.has(el)) {
          // Around a checkbox or radio, with a slot: LabelText, and its slots are in the tree.
          if (el.id) no('id on a checkbox label');
          const me = emit(parent, 'LabelText', '', false, dom); children(el, me); return;
        }
        if (tag === 'label' && labelled(el)) {
          if (el.id) no('id on a checkbox label');
          const me = emit(parent, '', '', true, dom);
          const around = el.getAttribute('for') === null;
          for (let c = el.firstChild; c; c = c.nextSibling) {
            if (c.nodeType === 3 && (rendered.get(c) || '').length) emit(me, '', '', true, c);
            else if (c.nodeType === 1 && around) visit(c, me, el, false);
            else if (c.nodeType === 1) no('element inside a checkbox label');
          }
          return;
        }
        if (tag === 'label') { noSlot++; const me = emit(parent, 'LabelText', '', false, dom); children(el, me); noSlot--; return; }
        // An element with an id is in Chrome's tree (a possible relation target).
        if (tag === 'span' && el.hasAttribute('role')) {
          // An image made of text, named by a plain aria-label: its text stays below it.
          if (el.getAttribute('role') === 'status') {
            // A live region; named by its author only, so an unnamed one has no name.
            if (el.hasAttribute('aria-label') || el.id) no('span role');
            const me = emit(parent, 'status', '', false, dom); children(el, me); return;
          }
          if (el.getAttribute('role') !== 'img' || !plain(el.getAttribute('aria-label')) || el.id) no('span role');
          const me = emit(parent, 'image', el.getAttribute('aria-label'), false, dom); children(el, me); return;
        }
        if (el.hasAttribute('aria-label')) no('span aria-label');
        if (el.id) { const me = emit(parent, 'generic', '', false, dom); children(el, me); return; }
        if (kept) { const me = emit(parent, '', '', true, dom); children(el, me); return; }
        children(el, parent); return;
      case 'slot': {
        // display:contents. Chrome keeps it (ignored) right under a shadow root, in a slot, in a
        // label, or anywhere inside a heading, link or button; not under the other elements
        // below; elsewhere it is not proved. Kept, it has no node when nothing is assigned to it
        // and it has no fallback, and an empty one when what it shows renders nothing.
        if (inTable || noSlot) no('slot in a table, fieldset or label');
        const upTag = up.localName;
        const keep = kept || named > 0 || upTag === 'label';
        if (!keep && !SLOT_PARENTS[upTag]) no('slot in ' + upTag);
        if (!keep) { children(el, parent); return; }
        if (!kids(el).length) return;
        const me = emit(parent, '', '', true, dom);
        children(el, me);
        return;
      }
      case 'br':
        emit(parent, 'LineBreak', '\n', false, dom); return;
      case 'fieldset': {
        // A group named by its legend, the first child.
        const legend = el.firstElementChild;
        if (!legend || legend.localName !== 'legend' || el.querySelectorAll(':scope > legend').length !== 1) no('fieldset without a legend');
        noSlot++;
        const me = emit(parent, 'group', textOf(legend), false, dom); children(el, me);
        noSlot--;
        return;
      }
      case 'legend': { const me = emit(parent, 'Legend', '', false, dom); children(el, me); return; }
      case 'aside': {
        // Only a named one: an unnamed aside's role depends on where it is.
        const label = el.getAttribute('aria-label');
        if (!plain(label)) no('aside without a plain aria-label');
        const me = emit(parent, 'complementary', label, false, dom); children(el, me); return;
      }
      case 'select': {
        // A single-choice drop-down of plain options: a combobox whose popup lists them.
        if (el.multiple || el.size > 1 || el.hasAttribute('aria-label')) no('select kind');
        const label = labels.get(el);
        const options = [];
        for (let c = el.firstChild; c; c = c.nextSibling) {
          if (c.nodeType === 3) { if (!WS.test(c.data)) no('text in a select'); continue; }
          if (c.nodeType !== 1) continue;
          if (c.localName !== 'option' || !plain(c.textContent) || c.disabled || c.id) no('select child');
          options.push(c);
        }
        if (!options.length || el.selectedIndex < 0) no('select without options');
        const me = emit(parent, 'combobox', label ? textOf(label) : '', false, dom, options[el.selectedIndex].textContent);
        const popup = emit(me, 'MenuListPopup', '', false, null);
        for (const option of options) emit(popup, 'option', option.textContent, false, option, option.selected);
        return;
      }
      case 'div': {
        if (el.hasAttribute('role') || el.hasAttribute('aria-label')) {
          const role = el.getAttribute('role');
          if (role === 'list' || role === 'listitem') { ariaList(el, role, parent, up); return; }
          // Only a toolbar named by a plain aria-label.
          if (role !== 'toolbar' || !plain(el.getAttribute('aria-label'))) no('div role');
          const me = emit(parent, 'toolbar', el.getAttribute('aria-label'), false, dom); children(el, me); return;
        }
        if (el.id && !el.firstChild) no('empty div with an id');
        const content = el.id ? 0 : contentOf(el);
        if (el.id || inlineOnly(content)) { const me = emit(parent, 'generic', '', false, dom); children(el, me); return; }
        if (!blockOnly(content)) no('div content');
        const me = emit(parent, '', '', true, dom); children(el, me); return;
      }
      case 'body': {
        if (el.id) no('id on body');
        const me = emit(parent, '', '', true, dom); children(el, me); return;
      }
      case 'p': { const me = emit(parent, 'paragraph', '', false, dom); children(el, me); return; }
      // Chrome keeps a form in its tree as `form`, named or not.
      case 'form': { const me = emit(parent, 'form', '', false, dom); children(el, me); return; }
      case 'em': { const me = emit(parent, 'emphasis', '', false, dom); children(el, me); return; }
      case 'strong': { const me = emit(parent, 'strong', '', false, dom); children(el, me); return; }
      case 'nav': case 'main': case 'article': case 'section': case 'header': case 'footer': {
        if ((tag === 'header' || tag === 'footer') && el.parentElement !== doc.body) no('scoped ' + tag);
        let role = {nav: 'navigation', main: 'main', article: 'article', section: 'generic', header: 'banner', footer: 'contentinfo'}[tag];
        // A landmark named by a plain aria-label (a named section is a region).
        const label = el.getAttribute('aria-label');
        if (label !== null && !plain(label)) no('aria-label spacing');
        if (label !== null && tag === 'section') role = 'region';
        const me = emit(parent, role, label || '', false, dom); children(el, me); return;
      }
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': {
        const me = emit(parent, 'heading', textOf(el), false, dom, HEADINGS[tag]);
        named++; children(el, me); named--; return;
      }
      case 'ul': case 'ol': {
        if (ariaLists) no('list in an ARIA list');
        for (const c of el.children) if (c.localName !== 'li') no('list child ' + c.localName);
        const me = emit(parent, 'list', '', false, dom);
        listDepth++;
        let n = 0;
        for (let c = el.firstChild; c; c = c.nextSibling) {
          if (c.nodeType === 3 && !WS.test(c.data)) no('text in a list');
          if (c.nodeType !== 1) continue;
          n++;
          visitItem(c, me, tag, n);
        }
        listDepth--;
        return;
      }
      case 'a': {
        if (el.getAttribute('href') === null) no('link without href');
        const me = emit(parent, 'link', textOf(el), false, dom, el.href);
        named++; children(el, me); named--; return;
      }
      case 'button': {
        const type = el.getAttribute('type');
        if (type !== null && type !== 'button' && type !== 'submit') no('button type');
        const aria = el.getAttribute('aria-label');
        if (aria !== null && !plain(aria)) no('button aria-label');
        const text = aria !== null ? aria : textOf(el);
        // A title only describes a button named otherwise; one that would name it is not mapped.
        if (el.hasAttribute('title') && text === '') no('button named by its title');
        const me = emit(parent, 'button', text, false, dom);
        named++; children(el, me); named--; return;
      }
      case 'input': {
        const type = el.getAttribute('type');
        const label = labels.get(el);
        const aria = el.getAttribute('aria-label');
        if (aria !== null && (label || !plain(aria))) no('input aria-label');
        const placeholder = el.getAttribute('placeholder');
        // A search input's placeholder names it unless an aria-label does.
        if (placeholder !== null && (label || !plain(placeholder) || type !== 'search')) no('input placeholder');
        if (el.hasAttribute('value') || el.hasAttribute('checked') ? type !== 'checkbox' && type !== 'radio' : false) no('input value');
        const name = aria !== null ? aria : label ? (label.getAttribute('for') === null ? labelText(label) : textOf(label)) : '';
        if (type === 'checkbox' || type === 'radio') {
          if (placeholder !== null) no('placeholder on a checkbox');
          if (el.indeterminate) no('indeterminate');
          emit(parent, type, name, false, dom, String(el.checked)); return;
        }
        if (type === 'search') {
          if (el.value !== '') no('search input content');
          const me = emit(parent, 'searchbox', aria === null && placeholder !== null ? placeholder : name, false, dom);
          // Chrome's inner editor (and placeholder) nodes, which carry no DOM node of the page.
          if (placeholder !== null) emit(me, '', '', true, null);
          emit(emit(me, '', '', true, null), 'generic', '', false, null);
          return;
        }
        // Typed text fields: the same textbox with its inner editor (a password's value is
        // never shown; an empty one is read the same).
        if (textField(el)) {
          if (el.value !== '' || el.placeholder) no('text input content');
          const me = emit(parent, 'textbox', name, false, dom);
          emit(me, 'generic', '', false, null);
          return;
        }
        no('input type ' + type);
        return;
      }
      case 'iframe': {
        const title = el.getAttribute('title');
        // Chrome collapses the title's runs of white space but keeps a space at either end.
        emit(parent, 'Iframe', title === null ? '' : title.replace(/[ \t\n\r\f]+/g, ' '), false, dom); return;
      }
      case 'img': {
        const alt = el.getAttribute('alt');
        if (alt === '') { if (el.id) no('id on a presentational image'); emit(parent, '', '', true, dom); return; }
        emit(parent, 'image', alt === null ? '' : alt.replace(/[ \t\n\r\f]+/g, ' ').trim(), false, dom); return;
      }
      case 'table': {
        if (inTable) no('nested table');
        if (el.hasAttribute('role') || el.hasAttribute('aria-label')) { grid(el, parent, dom); return; }
        const caption = el.querySelector(':scope > caption');
        const head = el.querySelector(':scope > thead');
        if (!caption || !head || !head.querySelector('th')) no('table without caption and header');
        for (const c of el.children) if (!{caption: 1, thead: 1, tbody: 1}[c.localName]) no('table child');
        for (const cell of el.querySelectorAll('td, th')) if (cell.getAttribute('colspan') || cell.getAttribute('rowspan')) no('span');
        for (const _th of el.querySelectorAll('tbody th')) no('row header');
        if (el.querySelector('th[scope]')) no('scope on a table header');
        inTable = el;
        const me = emit(parent, 'table', textOf(caption), false, dom);
        children(el, me);
        inTable = null;
        return;
      }
      case 'caption': { const me = emit(parent, 'caption', '', false, dom); children(el, me); return; }
      case 'thead': { const me = emit(parent, 'rowgroup', '', false, dom); children(el, me); return; }
      case 'tbody': {
        if (el.id) no('id on tbody'); const me = emit(parent, '', '', true, dom); children(el, me); return; }
      case 'tr': {
        let cells = 0;
        for (const _c of el.children) cells++;
        if (cells === 0) no('empty row');
        if (inGrid) {
          // A grid's rows are named by their cells' names, one space apart.
          const names = Array.from(el.children, gridCellName);
          const me = emit(parent, 'row', names.join(' '), false, dom); children(el, me); return;
        }
        const me = emit(parent, 'row', '', false, dom); children(el, me); return;
      }
      case 'th': {
        if (inGrid) {
          const role = el.parentElement.parentElement.localName === 'thead' ? 'columnheader' : 'rowheader';
          const me = emit(parent, role, gridCellName(el), false, dom); children(el, me); return;
        }
        const me = emit(parent, 'columnheader', textOf(el), false, dom); children(el, me); return;
      }
      case 'td': {
        if (inGrid) { const me = emit(parent, 'gridcell', gridCellName(el), false, dom); children(el, me); return; }
        const me = emit(parent, 'cell', textOf(el), false, dom); children(el, me); return;
      }
      default: {
        if (!isHost(el)) no('element ' + tag);
        if (inTable) no('custom element in a table');
        if (el.id) no('id on a custom element');
        if (blockHosts.has(el)) {
          // A block: as a div.
          const content = contentOf(el);
          if (inlineOnly(content)) { const me = emit(parent, 'generic', '', false, dom); children(el, me); return; }
          if (!blockOnly(content)) no('custom element content');
          const me = emit(parent, '', '', true, dom); children(el, me); return;
        }
        // Inline: in Chrome's tree (ignored) only right under a shadow root or in a slot.
        if (up.localName === 'label') no('custom element in a label');
        if (kept) { const me = emit(parent, '', '', true, dom); children(el, me); return; }
        children(el, parent); return;
      }
    }
  };
  // Where a slot is proved to be left out of Chrome's tree (outside headings, links, buttons).
  const SLOT_PARENTS = {div: 1, p: 1, main: 1, section: 1, article: 1, nav: 1, span: 1, em: 1, strong: 1, li: 1};
  // `div role=list` and its `div role=listitem`s, with nothing between but slots and custom
  // elements (Chrome makes an item outside a list a generic). An item's level is the number of
  // ARIA lists around it; no list of the other kind may be mixed in.
  const ariaList = (el, role, parent, up) => {
    if (el.hasAttribute('aria-label') || el.id) no('aria-label on a ' + role);
    if (role === 'listitem') {
      let p = up;
      while (p && (p.localName === 'slot' || isHost(p))) p = flatParent(p);
      if (!p || p.localName !== 'div' || p.getAttribute('role') !== 'list') no('listitem outside a list');
      const me = emit(parent, 'listitem', '', false, el, ariaLists);
      children(el, me);
      return;
    }
    if (listDepth) no('ARIA list in a list');
    const items = (n) => {
      const k = kids(n);
      for (let i = 0; i < k.length; i++) {
        const c = k[i];
        if (c.nodeType === 3) { if (!WS.test(c.data)) no('text in a list'); continue; }
        if (c.nodeType !== 1 || SKIP[c.localName]) continue;
        if (c.localName === 'slot' || isHost(c)) items(c);
        else if (c.localName !== 'div' || c.getAttribute('role') !== 'listitem') no('list child ' + c.localName);
      }
    };
    items(el);
    const me = emit(parent, 'list', '', false, el);
    ariaLists++;
    children(el, me);
    ariaLists--;
  };
  // A table with role=grid named by a plain aria-label: a header row of column headers (scope
  // col) in thead, rows in tbody whose th are row headers (scope row), each cell text or one
  // link, button or checkbox/radio named by a plain aria-label.
  let inGrid = false;
  const grid = (el, parent, dom) => {
    if (el.getAttribute('role') !== 'grid' || !plain(el.getAttribute('aria-label'))) no('table role');
    const head = el.querySelector(':scope > thead');
    if (!head) no('grid without a header');
    for (const c of el.children) if (!{thead: 1, tbody: 1}[c.localName]) no('grid child ' + c.localName);
    for (const cell of el.querySelectorAll('td, th')) {
      if (cell.getAttribute('colspan') || cell.getAttribute('rowspan')) no('span');
      const scope = cell.getAttribute('scope');
      const inHead = cell.parentElement.parentElement === head;
      if (cell.localName === 'th' ? scope !== (inHead ? 'col' : 'row') : (scope !== null || inHead)) no('grid header scope');
    }
    inTable = el;
    inGrid = true;
    const me = emit(parent, 'grid', el.getAttribute('aria-label'), false, dom);
    children(el, me);
    inTable = null;
    inGrid = false;
  };
  // The name of a grid cell: its text, or the name of its one control.
  const gridCellName = (cell) => {
    const controls = cell.querySelectorAll('a, button, input, select, label');
    if (!controls.length) {
      const name = textOf(cell);
      if (!name) no('empty grid cell');
      return name;
    }
    const control = controls[0];
    if (controls.length > 1 || control.parentElement !== cell || cell.textContent.trim() !== control.textContent.trim()) no('mixed grid cell');
    let name;
    if (control.localName === 'a' || control.localName === 'button') name = textOf(control);
    else if (control.localName === 'input' && (control.type === 'checkbox' || control.type === 'radio') && plain(control.getAttribute('aria-label'))) name = control.getAttribute('aria-label');
    else no('grid cell ' + control.localName);
    if (!name) no('empty grid cell');
    return name;
  };
  const visitItem = (li, parent, listTag, n) => {
    check(li);
    const style = listStyles ? styleOf(li) : {listStyleType: listTag === 'ol' ? 'decimal' : listDepth === 1 ? 'disc' : listDepth === 2 ? 'circle' : 'square'};
    const me = emit(parent, 'listitem', '', false, li, listDepth);
    let marker;
    if (listStyles && style.listStyleImage !== 'none') no('list-style-image');
    if (style.listStyleType === 'none') marker = null;
    else if (listTag === 'ol' && style.listStyleType === 'decimal') marker = n + '. ';
    else if (listTag === 'ul' && MARKERS[style.listStyleType]) marker = MARKERS[style.listStyleType];
    else no('list style');
    if (li.getAttribute('value') !== null || (listTag === 'ol' && li.parentElement.getAttribute('start') !== null)) no('list numbering');
    if (marker !== null) {
      const m = emit(me, 'ListMarker', marker, false, null);
      emit(m, '', '', true, null);
    }
    children(li, me);
  };

  // The numbered nodes of one role, in getFullAXTree's order (as `build` in walker.rs puts
  // them: a queue of unignored nodes, each one's children in order, an ignored child's own
  // children right after it).
  const ascii = (text) => text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
  const ofRole = (role) => {
    const childrenOf = nodes.map(() => []);
    for (let i = 1; i < nodes.length; i++) childrenOf[nodes[i][0]].push(i);
    const out = [];
    const take = (i) => {
      const n = nodes[i];
      if (n[4] !== -1 && ascii(n[1]) === role) out.push([n[2], n[4]]);
    };
    const queue = [0];
    take(0);
    const place = (i) => {
      take(i);
      if (nodes[i][3]) for (const c of childrenOf[i]) place(c);
      else queue.push(i);
    };
    for (let q = 0; q < queue.length; q++) for (const c of childrenOf[queue[q]]) place(c);
    return out;
  };

  try {
    if (doc.readyState === 'loading') no('still loading');
    if (doc.compatMode !== 'CSS1Compat') no('quirks mode');
    if (!doc.body || doc.body.localName !== 'body') no('no body');
    if (doc.documentElement.attributes.length > 1 || (doc.documentElement.attributes.length === 1 && !doc.documentElement.hasAttribute('lang'))) no('html attributes');
    if (doc.adoptedStyleSheets && doc.adoptedStyleSheets.length) no('adopted stylesheets');
    screen(doc.documentElement, false, false);
    sheets();
    findLabels();
    const root = emit(-1, 'RootWebArea', doc.title, false, doc);
    const html = emit(root, '', '', true, doc.documentElement);
    layoutBlock(doc.body);
    dropSpaces();
    visit(doc.body, html, doc.documentElement, false);
    const tagged = [];
    for (const el of doc.querySelectorAll('[data-__ab-ci]')) {
      const index = Number(el.getAttribute('data-__ab-ci'));
      if (Number.isInteger(index)) tagged.push([index, keyOf(el)]);
    }
    if (typeof onlyRole === 'string') return JSON.stringify(['role', ofRole(ascii(onlyRole))]);
    return JSON.stringify(['ok', nodes, tagged]);
  } catch (e) {
    if (e instanceof Unsupported) return JSON.stringify(['unsupported', e.reason]);
    return JSON.stringify(['unsupported', 'error: ' + (e && e.message)]);
  }
})
