(function (options) {
  // abx's accessibility audit: DOM checks run in the page, worded and shaped like an axe-core
  // report (rule ids match axe's where the rule means the same). Called as
  // (this)({tags: [...] | null, selector: "css" | null}); returns
  // {rules, violations, incomplete, passes, inapplicable, scoped} or {error}.
  var tags = options.tags;
  var scope = document.documentElement;
  if (options.selector) {
    try {
      scope = document.querySelector(options.selector);
    } catch (e) {
      return { error: 'Invalid selector: ' + options.selector };
    }
    if (!scope) return { error: 'No element matches selector: ' + options.selector };
  }

  var wcag = 'https://www.w3.org/WAI/WCAG22/Understanding/';
  var RULES = [
    { id: 'html-has-lang', impact: 'serious', tags: ['cat.language', 'wcag2a', 'wcag311'],
      help: 'The page must declare its language (<html lang>)', url: wcag + 'language-of-page.html', page: true },
    { id: 'document-title', impact: 'serious', tags: ['cat.text-alternatives', 'wcag2a', 'wcag242'],
      help: 'The page must have a title', url: wcag + 'page-titled.html', page: true },
    { id: 'image-alt', impact: 'critical', tags: ['cat.text-alternatives', 'wcag2a', 'wcag111'],
      help: 'Images need a text alternative', url: wcag + 'non-text-content.html' },
    { id: 'label', impact: 'critical', tags: ['cat.forms', 'wcag2a', 'wcag412', 'wcag131'],
      help: 'Text fields need a label', url: wcag + 'name-role-value.html' },
    { id: 'select-name', impact: 'critical', tags: ['cat.forms', 'wcag2a', 'wcag412', 'wcag131'],
      help: 'Selects need a label', url: wcag + 'name-role-value.html' },
    { id: 'button-name', impact: 'critical', tags: ['cat.name-role-value', 'wcag2a', 'wcag412'],
      help: 'Buttons need a name', url: wcag + 'name-role-value.html' },
    { id: 'link-name', impact: 'serious', tags: ['cat.name-role-value', 'wcag2a', 'wcag244', 'wcag412'],
      help: 'Links need a name', url: wcag + 'link-purpose-in-context.html' },
    { id: 'aria-roles', impact: 'critical', tags: ['cat.aria', 'wcag2a', 'wcag412'],
      help: 'Roles must be ARIA roles', url: wcag + 'name-role-value.html' },
    { id: 'duplicate-id', impact: 'minor', tags: ['cat.parsing', 'best-practice'],
      help: 'Ids must be unique in the page', url: wcag + 'name-role-value.html' },
    { id: 'color-contrast', impact: 'serious', tags: ['cat.color', 'wcag2aa', 'wcag143'],
      help: 'Text needs enough contrast with its background', url: wcag + 'contrast-minimum.html' },
    { id: 'heading-order', impact: 'moderate', tags: ['cat.semantics', 'best-practice'],
      help: 'Headings should not skip levels', url: wcag + 'info-and-relationships.html' }
  ];

  var ROLES = ('alert alertdialog application article banner blockquote button caption cell checkbox ' +
    'code columnheader combobox complementary contentinfo definition deletion dialog directory ' +
    'document emphasis feed figure form generic grid gridcell group heading img image insertion link list ' +
    'listbox listitem log main mark marquee math menu menubar menuitem menuitemcheckbox ' +
    'menuitemradio meter navigation none note option paragraph presentation progressbar radio ' +
    'radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider ' +
    'spinbutton status strong subscript superscript switch tab table tablist tabpanel term textbox time ' +
    'timer toolbar tooltip tree treegrid treeitem doc-abstract doc-acknowledgments doc-afterword ' +
    'doc-appendix doc-backlink doc-biblioentry doc-bibliography doc-biblioref doc-chapter ' +
    'doc-colophon doc-conclusion doc-cover doc-credit doc-credits doc-dedication doc-endnote ' +
    'doc-endnotes doc-epigraph doc-epilogue doc-errata doc-example doc-footnote doc-foreword ' +
    'doc-glossary doc-glossref doc-index doc-introduction doc-noteref doc-notice doc-pagebreak ' +
    'doc-pagelist doc-part doc-preface doc-prologue doc-pullquote doc-qna doc-subtitle doc-tip ' +
    'doc-toc graphics-document graphics-object graphics-symbol').split(' ');

  var selected = RULES.filter(function (rule) {
    if (options.selector && rule.page) return false;
    if (!tags || !tags.length) return true;
    return rule.tags.some(function (t) { return tags.indexOf(t) >= 0; }) || tags.indexOf(rule.id) >= 0;
  });

  function within(el) { return scope === el || scope.contains(el); }
  function all(css) {
    var found = Array.prototype.slice.call(document.querySelectorAll(css)).filter(within);
    return found;
  }
  function hidden(el) {
    for (var n = el; n && n.nodeType === 1; n = n.parentElement) {
      if (n.hidden || n.getAttribute('aria-hidden') === 'true') return true;
      var cs = getComputedStyle(n);
      if (cs.display === 'none' || cs.visibility === 'hidden') return true;
    }
    return false;
  }
  function text(s) { return (s || '').replace(/\s+/g, ' ').trim(); }
  function byIds(el, attr) {
    var ids = text(el.getAttribute(attr)).split(' ').filter(Boolean);
    return text(ids.map(function (id) {
      var t = document.getElementById(id);
      return t ? t.textContent : '';
    }).join(' '));
  }
  // The accessible name, by ARIA's name computation for the element kinds checked here.
  function name(el) {
    var n = byIds(el, 'aria-labelledby');
    if (n) return n;
    n = text(el.getAttribute('aria-label'));
    if (n) return n;
    var tag = el.tagName.toLowerCase();
    if (tag === 'img' || (tag === 'input' && el.type === 'image')) {
      if (el.hasAttribute('alt')) return text(el.getAttribute('alt'));
    }
    if (el.labels && el.labels.length) {
      n = text(Array.prototype.map.call(el.labels, function (l) { return l.textContent; }).join(' '));
      if (n) return n;
    }
    if (tag === 'input' && ['submit', 'reset', 'button'].indexOf(el.type) >= 0) {
      if (el.value) return text(el.value);
      if (el.type === 'submit') return 'Submit';
      if (el.type === 'reset') return 'Reset';
    }
    if (tag === 'button' || tag === 'a' || ['button', 'link'].indexOf(el.getAttribute('role')) >= 0) {
      n = contentName(el);
      if (n) return n;
    }
    n = text(el.getAttribute('title'));
    if (n) return n;
    if (tag === 'input' || tag === 'textarea') return text(el.getAttribute('placeholder'));
    return '';
  }
  function contentName(el) {
    var parts = [];
    el.childNodes.forEach(function (c) {
      if (c.nodeType === 3) parts.push(c.textContent);
      else if (c.nodeType === 1 && !hidden(c)) {
        var t = c.tagName.toLowerCase();
        if (t === 'img' || c.getAttribute('aria-label') || c.getAttribute('aria-labelledby')) parts.push(name(c));
        else parts.push(contentName(c));
      }
    });
    return text(parts.join(' '));
  }
  function presentational(el) {
    var r = el.getAttribute('role');
    return r === 'none' || r === 'presentation';
  }

  var idCounts = {};
  document.querySelectorAll('[id]').forEach(function (e) { idCounts[e.id] = (idCounts[e.id] || 0) + 1; });
  function cssEscape(s) { return window.CSS && CSS.escape ? CSS.escape(s) : s; }
  function selectorOf(el) {
    if (el.id && idCounts[el.id] === 1) return '#' + cssEscape(el.id);
    var tag = el.tagName.toLowerCase();
    if (document.getElementsByTagName(tag).length === 1) return tag;
    var path = [];
    for (var n = el; n && n.nodeType === 1 && n !== document.documentElement; n = n.parentElement) {
      if (n !== el && n.id && idCounts[n.id] === 1) { path.unshift('#' + cssEscape(n.id)); break; }
      var t = n.tagName.toLowerCase();
      var same = n.parentElement ? Array.prototype.filter.call(n.parentElement.children, function (s) {
        return s.tagName === n.tagName;
      }) : [n];
      path.unshift(same.length > 1 ? t + ':nth-of-type(' + (same.indexOf(n) + 1) + ')' : t);
    }
    return path.join(' > ');
  }
  function snippet(el) {
    var html = el.outerHTML || '';
    return html.length > 250 ? html.slice(0, 247) + '...' : html;
  }

  // Colours: the first opaque background up the tree; undefined when an image or a gradient
  // (or a transparent page) makes it unknowable without looking at pixels.
  function rgba(c) {
    var m = /rgba?\(([^)]+)\)/.exec(c || '');
    if (!m) return null;
    var p = m[1].split(/[ ,/]+/).filter(Boolean).map(parseFloat);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  }
  function background(el) {
    var layers = [];
    for (var n = el; n && n.nodeType === 1; n = n.parentElement) {
      var cs = getComputedStyle(n);
      if (cs.backgroundImage && cs.backgroundImage !== 'none') return undefined;
      var c = rgba(cs.backgroundColor);
      if (c && c.a > 0) {
        layers.push(c);
        if (c.a >= 1) break;
      }
    }
    var out = { r: 255, g: 255, b: 255 };
    for (var i = layers.length - 1; i >= 0; i--) {
      var l = layers[i];
      out = { r: l.r * l.a + out.r * (1 - l.a), g: l.g * l.a + out.g * (1 - l.a), b: l.b * l.a + out.b * (1 - l.a) };
    }
    return out;
  }
  function luminance(c) {
    var f = function (v) { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  }
  function ratio(a, b) {
    var x = luminance(a), y = luminance(b);
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  }

  var controlsNeedingLabel = 'input:not([type=hidden]):not([type=submit]):not([type=reset]):not([type=button]):not([type=image]), textarea';

  // Each check: the applicable elements and, per element, null (passes), a failure message, or
  // {incomplete: message}.
  var CHECKS = {
    'html-has-lang': function () {
      var html = document.documentElement;
      return [[html, text(html.getAttribute('lang')) ? null : 'The <html> element has no lang attribute']];
    },
    'document-title': function () {
      return [[document.documentElement, text(document.title) ? null : 'The document has no title, or an empty one']];
    },
    'image-alt': function () {
      return all('img, [role=img]').filter(function (el) { return !hidden(el) && !presentational(el); })
        .map(function (el) {
          var ok = el.hasAttribute('alt') || name(el);
          return [el, ok ? null : 'The image has no alt attribute, aria-label, aria-labelledby or title'];
        });
    },
    'label': function () {
      return all(controlsNeedingLabel).filter(function (el) { return !hidden(el); }).map(function (el) {
        return [el, name(el) ? null : 'The field has no <label>, aria-label, aria-labelledby, title or placeholder'];
      });
    },
    'select-name': function () {
      return all('select').filter(function (el) { return !hidden(el); }).map(function (el) {
        return [el, name(el) ? null : 'The select has no <label>, aria-label, aria-labelledby or title'];
      });
    },
    'button-name': function () {
      return all('button, input[type=button], input[type=submit], input[type=reset], [role=button]')
        .filter(function (el) { return !hidden(el); }).map(function (el) {
          return [el, name(el) ? null : 'The button has no text, aria-label, aria-labelledby or title'];
        });
    },
    'link-name': function () {
      return all('a[href], [role=link]').filter(function (el) { return !hidden(el) && !presentational(el); })
        .map(function (el) {
          return [el, name(el) ? null : 'The link has no text, aria-label, aria-labelledby or title'];
        });
    },
    'aria-roles': function () {
      return all('[role]').map(function (el) {
        var roles = text(el.getAttribute('role')).split(' ').filter(Boolean);
        var bad = roles.filter(function (r) { return ROLES.indexOf(r.toLowerCase()) < 0; });
        return [el, bad.length ? 'Not a valid ARIA role: ' + bad.join(', ') : null];
      });
    },
    'duplicate-id': function () {
      return all('[id]').map(function (el) {
        return [el, idCounts[el.id] > 1 ? 'Another element has the same id: ' + el.id : null];
      });
    },
    'color-contrast': function () {
      var out = [];
      all('body *').forEach(function (el) {
        var own = Array.prototype.some.call(el.childNodes, function (c) {
          return c.nodeType === 3 && text(c.textContent);
        });
        if (!own || hidden(el)) return;
        var tag = el.tagName.toLowerCase();
        if (['script', 'style', 'noscript', 'option', 'title'].indexOf(tag) >= 0) return;
        if (el.closest('[disabled]')) return;
        var cs = getComputedStyle(el);
        var fg = rgba(cs.color);
        var bg = background(el);
        if (!fg) return;
        if (bg === undefined) {
          out.push([el, { incomplete: 'The background is an image or a gradient: check the contrast by eye' }]);
          return;
        }
        var opaque = fg.a < 1 ? {
          r: fg.r * fg.a + bg.r * (1 - fg.a), g: fg.g * fg.a + bg.g * (1 - fg.a), b: fg.b * fg.a + bg.b * (1 - fg.a)
        } : fg;
        var size = parseFloat(cs.fontSize);
        var bold = parseInt(cs.fontWeight, 10) >= 700;
        var large = size >= 24 || (bold && size >= 18.66);
        var need = large ? 3 : 4.5;
        var got = ratio(opaque, bg);
        out.push([el, got + 1e-9 >= need ? null : 'The contrast is ' + got.toFixed(2) + ':1; it needs at least ' + need + ':1 (' +
          cs.color + ' on rgb(' + Math.round(bg.r) + ', ' + Math.round(bg.g) + ', ' + Math.round(bg.b) + '), ' + cs.fontSize + ')']);
      });
      return out;
    },
    'heading-order': function () {
      var out = [];
      var last = 0;
      document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role=heading]').forEach(function (el) {
        if (hidden(el)) return;
        var level = /^h\d$/i.test(el.tagName) ? parseInt(el.tagName.slice(1), 10) :
          parseInt(el.getAttribute('aria-level') || '2', 10);
        var bad = last && level > last + 1;
        if (within(el)) out.push([el, bad ? 'Heading level ' + level + ' follows level ' + last : null]);
        last = level;
      });
      return out;
    }
  };

  var violations = [], incomplete = [], passes = [], inapplicable = [];
  selected.forEach(function (rule) {
    var results = CHECKS[rule.id]();
    var failed = [], unsure = [];
    results.forEach(function (pair) {
      var el = pair[0], verdict = pair[1];
      if (verdict === null) return;
      var node = { target: [selectorOf(el)], html: snippet(el) };
      if (typeof verdict === 'string') {
        node.failureSummary = 'Fix the following:\n  ' + verdict;
        failed.push(node);
      } else {
        node.failureSummary = 'Review the following:\n  ' + verdict.incomplete;
        unsure.push(node);
      }
    });
    var entry = function (nodes) {
      return { id: rule.id, impact: rule.impact, help: rule.help, helpUrl: rule.url, tags: rule.tags,
        nodeCount: nodes.length, nodes: nodes };
    };
    if (!results.length) inapplicable.push(rule.id);
    else if (failed.length) violations.push(entry(failed));
    else passes.push(rule.id);
    if (unsure.length) incomplete.push(entry(unsure));
  });
  var order = function (a, b) { return a.id < b.id ? -1 : a.id > b.id ? 1 : 0; };
  violations.sort(order);
  incomplete.sort(order);
  return {
    url: location.href,
    rules: selected.map(function (r) { return r.id; }),
    violations: violations,
    incomplete: incomplete,
    passes: passes.length,
    inapplicable: inapplicable.length
  };
})
