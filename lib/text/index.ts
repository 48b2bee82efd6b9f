/** Text for people from untrusted data: the characters that hide or reorder it, made visible (visible-text.ts). */
export {
  describeHidden,
  findHidden,
  type HiddenChar,
  type HiddenFound,
  type HiddenKind,
  hasHidden,
  hiddenWarning,
  jsonEscaped,
  markedText,
  markOf,
  terminalText,
  type VisiblePart,
  visibleParts,
} from './visible-text';
