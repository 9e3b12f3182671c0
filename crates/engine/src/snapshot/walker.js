(function() {
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

  // A first pass over the whole document that refuses what the walk would not see the same way.
  const screen = (node) => {
    if (node.nodeType === 1) {
      if (node.shadowRoot) no('shadow root');
      if (node.localName === 'iframe' || node.localName === 'frame' || node.localName === 'object' || node.localName === 'embed') no('frame');
      if (node.localName === 'template') return;
    }
    for (let c = node.firstChild; c; c = c.nextSibling) if (c.nodeType === 1) screen(c);
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
  const sheets = () => {
    for (const sheet of doc.styleSheets) {
      let rules;
      try { rules = sheet.cssRules; } catch (e) { no('unreadable stylesheet'); }
      for (const rule of rules) {
        if (!(rule instanceof view.CSSStyleRule) || rule.cssRules.length) no('stylesheet at-rule');
        if (/::?(before|after|marker|first-letter|first-line|placeholder|backdrop|selection)/i.test(rule.selectorText)) no('pseudo-element rule');
        const style = rule.style;
        for (let i = 0; i < style.length; i++) {
          const property = style[i];
          if (property === 'display' && style.getPropertyValue('display') === 'flex') { flexRules.push(rule.selectorText); continue; }
          if (FLEX.test(property)) continue;
          if (!PAINT.test(property)) no('stylesheet property ' + property);
          if (property.startsWith('list-style')) listStyles = true;
        }
      }
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
    article: 'block', section: 'block', body: 'block', aside: 'block', fieldset: 'block', legend: 'block', li: 'list-item', table: 'table', caption: 'table-caption',
    thead: 'table-header-group', tbody: 'table-row-group', tr: 'table-row', th: 'table-cell', td: 'table-cell'};
  const INLINE = {span: 'inline', a: 'inline', em: 'inline', strong: 'inline', label: 'inline', br: 'inline'};
  const ATOMIC = {button: 'inline-block', input: 'inline-block', img: 'inline', select: 'inline-block'};
  const SKIP = {script: 1, style: 1, noscript: 1, template: 1};
  const ATTRS = {
    '*': {class: 1, id: 1},
    a: {href: 1}, button: {type: 1, 'aria-label': 1}, aside: {'aria-label': 1}, span: {role: 1, 'aria-label': 1},
    input: {type: 1, id: 1, name: 1, placeholder: 1, 'aria-label': 1, value: 1, checked: 1}, option: {selected: 1},
    nav: {'aria-label': 1}, main: {'aria-label': 1}, article: {'aria-label': 1}, section: {'aria-label': 1},
    div: {role: 1, 'aria-label': 1}, label: {for: 1},
    img: {alt: 1, src: 1, width: 1, height: 1}, script: {src: 1, type: 1}, style: {},
    table: {role: 1, 'aria-label': 1}, th: {scope: 1}
  };
  const HEADINGS = {h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6};
  const MARKERS = {disc: '\u2022 ', circle: '\u25e6 ', square: '\u25aa '};

  const styleOf = (el) => view.getComputedStyle(el);
  // One XPath query (native, so cheap on large pages) for any attribute outside ATTRS.
  const attributes = () => {
    const allowed = ["starts-with(name(), 'data-')"];
    for (const tag in ATTRS) {
      for (const name in ATTRS[tag]) {
        allowed.push(tag === '*' ? `name() = '${name}'` : `(name() = '${name}' and local-name(..) = '${tag}')`);
      }
    }
    const query = `descendant-or-self::*[@*[not(${allowed.join(' or ')})]]`;
    const found = doc.evaluate(query, doc.body, null, view.XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
    if (found) {
      const name = Array.from(found.attributes).map((a) => a.name).find((n) => !(ATTRS['*'][n] || (ATTRS[found.localName] && ATTRS[found.localName][n]) || n.startsWith('data-')));
      no('attribute ' + name + ' on ' + found.localName);
    }
  };
  const check = (el) => {
    const tag = el.localName;
    if (el.namespaceURI !== 'http://www.w3.org/1999/xhtml') no('foreign element');
    if (SKIP[tag]) return null;
    const expected = BLOCK[tag] || INLINE[tag] || ATOMIC[tag];
    if (!expected) no('element ' + tag);
    return true;
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
        rendered.set(item.node, item.s);
      }
      items.length = 0;
    };
    const inline = (node) => {
      for (let c = node.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) { items.push({node: c, s: c.data.replace(/[ \t\n\r\f]+/g, ' ')}); continue; }
        if (c.nodeType !== 1) continue;
        const tag = c.localName;
        if (SKIP[tag]) continue;
        if (tag === 'br') { flush(); continue; }
        if (INLINE[tag]) { inline(c); continue; }
        if (ATOMIC[tag]) { items.push({atomic: true}); if (tag === 'button') layoutBlock(c); continue; }
        flush();
        layoutBlock(c);
      }
    };
    inline(container);
    flush();
  };

  const textOf = (node) => {
    // Concatenated rendered text under node (name from contents), collapsed and trimmed.
    let out = '';
    const walk = (n) => {
      for (let c = n.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) { out += rendered.get(c) || ''; continue; }
        if (c.nodeType !== 1 || SKIP[c.localName]) continue;
        if (ATOMIC[c.localName] || c.localName === 'label' || c.localName === 'br') no('control inside a name');
        if (c.hasAttribute('role') || c.hasAttribute('aria-label')) no('role inside a name');
        if (BLOCK[c.localName] && c.localName !== 'div' && c.localName !== 'p') no('block inside a name');
        walk(c);
      }
    };
    walk(node);
    return out.replace(/[ \t\n\r\f]+/g, ' ').trim();
  };

  const labels = new Map(); // control -> label
  const findLabels = () => doc.querySelectorAll('label').forEach((label) => {
    const target = label.getAttribute('for');
    if (target === null) {
      // A label around one checkbox or radio and text: the control's name is the text.
      const inner = label.querySelectorAll('*');
      const control = inner[0];
      if (inner.length !== 1 || control.localName !== 'input' || (control.type !== 'checkbox' && control.type !== 'radio') || control.hasAttribute('aria-label')) no('label content');
      labels.set(control, label);
      return;
    }
    const control = doc.getElementById(target);
    if (!control || (control.localName !== 'input' && control.localName !== 'select') || labels.has(control)) no('label');
    labels.set(control, label);
  });
  const labelled = (label) => {
    const control = label.getAttribute('for') !== null ? doc.getElementById(label.getAttribute('for')) : label.querySelector('input');
    return control && (control.type === 'checkbox' || control.type === 'radio');
  };
  // A label's text around its control (the label's text nodes, collapsed and trimmed).
  const labelText = (label) => {
    let out = '';
    for (let c = label.firstChild; c; c = c.nextSibling) if (c.nodeType === 3) out += rendered.get(c) || '';
    return out.replace(/[ \t\n\r\f]+/g, ' ').trim();
  };

  // Whether a block's children are all inline content (Chrome includes such a div as generic).
  const inlineOnly = (el) => {
    let text = false;
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) { if (!WS.test(c.data)) text = true; continue; }
      if (c.nodeType !== 1 || SKIP[c.localName]) continue;
      if (INLINE[c.localName]) { text = true; continue; }
      return ATOMIC[c.localName] ? no('control in a div') : false;
    }
    return text;
  };
  const blockOnly = (el) => {
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) { if (!WS.test(c.data)) return false; continue; }
      if (c.nodeType !== 1 || SKIP[c.localName]) continue;
      if (!BLOCK[c.localName]) return false;
    }
    return true;
  };

  let listDepth = 0;
  let inTable = null;
  const children = (el, parent) => {
    for (let c = el.firstChild; c; c = c.nextSibling) visit(c, parent);
  };
  const visit = (node, parent) => {
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
        if (tag === 'label' && labelled(el)) {
          if (el.id) no('id on a checkbox label');
          const me = emit(parent, '', '', true, dom);
          const around = el.getAttribute('for') === null;
          for (let c = el.firstChild; c; c = c.nextSibling) {
            if (c.nodeType === 3 && (rendered.get(c) || '').length) emit(me, '', '', true, c);
            else if (c.nodeType === 1 && around) visit(c, me);
            else if (c.nodeType === 1) no('element inside a checkbox label');
          }
          return;
        }
        if (tag === 'label') { const me = emit(parent, 'LabelText', '', false, dom); children(el, me); return; }
        // An element with an id is in Chrome's tree (a possible relation target).
        if (tag === 'span' && el.hasAttribute('role')) {
          // An image made of text, named by a plain aria-label: its text stays below it.
          if (el.getAttribute('role') !== 'img' || !plain(el.getAttribute('aria-label')) || el.id) no('span role');
          const me = emit(parent, 'image', el.getAttribute('aria-label'), false, dom); children(el, me); return;
        }
        if (el.hasAttribute('aria-label')) no('span aria-label');
        if (el.id) { const me = emit(parent, 'generic', '', false, dom); children(el, me); return; }
        children(el, parent); return;
      case 'br':
        emit(parent, 'LineBreak', '\n', false, dom); return;
      case 'fieldset': {
        // A group named by its legend, the first child.
        const legend = el.firstElementChild;
        if (!legend || legend.localName !== 'legend' || el.querySelectorAll(':scope > legend').length !== 1) no('fieldset without a legend');
        const me = emit(parent, 'group', textOf(legend), false, dom); children(el, me); return;
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
          // Only a toolbar named by a plain aria-label.
          if (el.getAttribute('role') !== 'toolbar' || !plain(el.getAttribute('aria-label'))) no('div role');
          const me = emit(parent, 'toolbar', el.getAttribute('aria-label'), false, dom); children(el, me); return;
        }
        if (el.id && !el.firstChild) no('empty div with an id');
        if (el.id || inlineOnly(el)) { const me = emit(parent, 'generic', '', false, dom); children(el, me); return; }
        if (!blockOnly(el) || !el.firstElementChild) no('div content');
        const me = emit(parent, '', '', true, dom); children(el, me); return;
      }
      case 'body': {
        if (el.id) no('id on body');
        const me = emit(parent, '', '', true, dom); children(el, me); return;
      }
      case 'p': { const me = emit(parent, 'paragraph', '', false, dom); children(el, me); return; }
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
        const me = emit(parent, 'heading', textOf(el), false, dom, HEADINGS[tag]); children(el, me); return;
      }
      case 'ul': case 'ol': {
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
        const me = emit(parent, 'link', textOf(el), false, dom, el.href); children(el, me); return;
      }
      case 'button': {
        const type = el.getAttribute('type');
        if (type !== null && type !== 'button' && type !== 'submit') no('button type');
        const aria = el.getAttribute('aria-label');
        if (aria !== null && !plain(aria)) no('button aria-label');
        const me = emit(parent, 'button', aria !== null ? aria : textOf(el), false, dom); children(el, me); return;
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
        if (type === 'text' || type === null) {
          if (el.value !== '' || el.placeholder) no('text input content');
          const me = emit(parent, 'textbox', name, false, dom);
          emit(me, 'generic', '', false, null);
          return;
        }
        no('input type ' + type);
        return;
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
      default:
        no('element ' + tag);
    }
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

  try {
    if (doc.readyState === 'loading') no('still loading');
    if (doc.compatMode !== 'CSS1Compat') no('quirks mode');
    if (!doc.body || doc.body.localName !== 'body') no('no body');
    if (doc.documentElement.attributes.length > 1 || (doc.documentElement.attributes.length === 1 && !doc.documentElement.hasAttribute('lang'))) no('html attributes');
    if (doc.adoptedStyleSheets && doc.adoptedStyleSheets.length) no('adopted stylesheets');
    attributes();
    screen(doc.documentElement);
    sheets();
    findLabels();
    const root = emit(-1, 'RootWebArea', doc.title, false, doc);
    const html = emit(root, '', '', true, doc.documentElement);
    layoutBlock(doc.body);
    visit(doc.body, html);
    const tagged = [];
    for (const el of doc.querySelectorAll('[data-__ab-ci]')) {
      const index = Number(el.getAttribute('data-__ab-ci'));
      if (Number.isInteger(index)) tagged.push([index, keyOf(el)]);
    }
    return JSON.stringify(['ok', nodes, tagged]);
  } catch (e) {
    if (e instanceof Unsupported) return JSON.stringify(['unsupported', e.reason]);
    return JSON.stringify(['unsupported', 'error: ' + (e && e.message)]);
  }
})
