// The package ships types its "exports" map does not point at under bundler resolution.
declare module 'dom-accessibility-api' {
  export function computeAccessibleName(el: Element): string
}
